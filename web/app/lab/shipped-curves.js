// The training curves of the shipped checkpoints (curves.json beside them, written by `npm run train`): the
// training panel draws a checkpoint's recorded loss curve where a live run draws its own. Fetched only by the
// page that draws them (the training panel's page), never by the embedded explorer.
import { shippedJson } from '../shared/claims.js';

/**
 * The curves of the shipped checkpoints: {version, curves: {<task>-<encoding>.ckpt: entry}}, or null when this
 * build ships none (the checkpoint index does not list curves.json) or the file is not one posenc_train wrote.
 */
export async function loadCurves() {
  const c = await shippedJson('curves.json');
  return c && c.version === 1 && c.curves && typeof c.curves === 'object' ? c : null;
}

/**
 * One checkpoint's curve as the panel draws it: {points: [[step, loss]], steps, stepsToTarget, heldOut:
 * [[step, value]], heldOutMetric}, or null when `curves` has none for `task` and `encoding`. Point i of an
 * entry's `loss` is the mean training loss of steps i*every+1 .. min((i+1)*every, steps).
 */
export function shippedCurve(curves, task, encoding) {
  const e = curves?.curves?.[`${task}-${encoding}.ckpt`];
  if (!e || !Array.isArray(e.loss) || !e.loss.length || !(e.every > 0) || !(e.steps > 0)) return null;
  return {
    points: e.loss.map((l, i) => [Math.min((i + 1) * e.every, e.steps), l]),
    steps: e.steps,
    stepsToTarget: e.stepsToTarget ?? null,
    heldOut: (e.heldOut ?? []).map((v, i) => [(i + 1) * e.checkEvery, v]),
    heldOutMetric: e.heldOutMetric,
  };
}
