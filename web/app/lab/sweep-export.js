// Wires exportSweep (animate-export.js) to a live explorer: results come from
// its sweep client, the models from its trainer, the lengths from its grid.
// Used by the page (main.js) and usable by <posenc-explorer>: nothing here
// looks anything up in the document.
import { exportSweep, themeFromStyle } from './animate-export.js';

const SETTLED = ['trained', 'checkpoint', 'stopped'];

/**
 * A results source over a sweep client: asks for `length` (with the view's other lengths, so the page's own sweep
 * goes on) and waits for the current model's result at exactly that length.
 */
export function clientSource(client, viewFor, { timeout = 120000, poll = 30, evaluations = null } = {}) {
  return async (encoding, length, signal) => {
    const end = Date.now() + timeout;
    for (;;) {
      signal?.throwIfAborted();
      const r = client.fresh(encoding, length);
      if (r) return withEvaluation(r, evaluations?.at(encoding, length));
      const view = viewFor(encoding);
      client.request(encoding, { ...view, lengths: [length, ...view.lengths.filter((T) => T !== length)] });
      if (Date.now() > end) throw new Error(`no sweep result for ${encoding} at length ${length} after ${timeout / 1000} s`);
      await new Promise((r) => setTimeout(r, poll));
    }
  };
}

/**
 * The frame's numbers are the page's (evaluations.js: the shipped measurement where it applies, else this live
 * result), with the sequences they rest on; the maps stay the live result's.
 */
function withEvaluation(r, ev) {
  if (!ev) return r;
  return { ...r, accuracy: ev.accuracy, loss: ev.loss, sequences: ev.sequences, measured: ev.measured };
}

/** Waits until every encoding's model is final (trained, shipped checkpoint or stopped), so all frames show one model. */
export async function waitForModels(trainer, encodings, { signal, onWait = () => {}, poll = 200 } = {}) {
  for (;;) {
    signal?.throwIfAborted();
    const runs = encodings.map((e) => [e, trainer.runs.get(e)]);
    const failed = runs.find(([, r]) => r?.status === 'error');
    if (failed) throw new Error(`${failed[0]}: training failed (${failed[1].error})`);
    if (!trainer.busy() && runs.every(([, r]) => SETTLED.includes(r?.status))) return;
    onWait(runs.filter(([, r]) => !SETTLED.includes(r?.status)).map(([e, r]) => ({ encoding: e, status: r?.status ?? 'none', step: r?.step ?? 0,
      steps: r?.steps ?? 0 })));
    await new Promise((r) => setTimeout(r, poll));
  }
}

/**
 * The lengths of an export: the sweep grid's points in [from, to]; with `frames`, that many, taken evenly from those
 * points, or evenly spaced integers when there are fewer points than frames.
 */
export function sweepLengths(grid, { from = grid[0], to = grid.at(-1), frames = null } = {}) {
  if (!(from <= to)) throw new RangeError(`from must be at most to (got from ${from}, to ${to})`);
  const points = grid.filter((T) => T >= from && T <= to);
  if (frames === null) return points.length ? points : [from, to].filter((T, i, a) => a.indexOf(T) === i);
  if (!Number.isInteger(frames) || frames < 1) throw new RangeError(`frames must be a positive integer (got ${frames})`);
  if (frames === 1) return [to];
  const pick = points.length >= frames
    ? Array.from({ length: frames }, (_, k) => points[Math.round((k * (points.length - 1)) / (frames - 1))])
    : Array.from({ length: frames }, (_, k) => Math.round(from + (k * (to - from)) / (frames - 1)));
  return [...new Set(pick)];
}

/**
 * An exporter for one explorer: `run(format, options, onProgress, signal)` -> {blob, name, ...}.
 * deps: {client, trainer, state (live object), grid: () => lengths, view: (encoding) => sweep view (as passed to
 * client.request), lut: the maps' colour table (as given to the sweep client), style: () => CSSStyleDeclaration with
 * the theme's custom properties, evaluations: the page's one store of figures (evaluations.js), whose numbers the
 * frames print}.
 * options: {from, to, frames, at, width, scale, delay, hold}; defaults: the grid from the training length (or the
 * current length, if shorter) to the end; stills at the current length.
 */
export function createSweepExporter({ client, trainer, state, grid, view, lut, style, evaluations = null }) {
  async function run(format, options = {}, onProgress = () => {}, signal = null) {
    const s = { ...state, encodings: [...state.encodings] };
    await waitForModels(trainer, s.encodings, { signal, onWait: (waiting) => onProgress({ phase: 'models', waiting, fraction: 0 }) });
    const at = options.at ?? s.length;
    const lengths = sweepLengths(grid(), { from: options.from ?? Math.min(s.trainLength, at), to: options.to, frames: options.frames });
    return exportSweep({
      source: clientSource(client, view, { evaluations }), encodings: s.encodings, lengths, at, format, trainLength: s.trainLength, layer: s.layer - 1,
      task: s.task, theme: themeFromStyle(style()), lut, width: options.width, scale: options.scale, delay: options.delay,
      hold: options.hold, onProgress, signal,
    });
  }
  return { run };
}
