// The explorer's controller, shared by the page (main.js) and <posenc-explorer>:
// the sweep client and the trainer wired together for one state and timeline.
// A model arriving (a shipped checkpoint, a training snapshot, the trained
// model) goes to the sweep; the sweep is asked for the lengths of the timeline
// with the current view (layer, head, task, seed, and RoPE's scaling when the
// core accepts it). The views, controls and frame loop stay with the caller.
import { interpolateViridis } from '../../vendor/d3.js';
import { lutFor } from '../shared/heatmap.js';
import { createSweepClient } from './sweep-client.js';
import { createTrainer, learnedWords, heldOutWords } from './trainer.js';
import { trainTask } from '../shared/experiment.js';
import { scalingObject } from '../rope/rope-scaling.js';
import { viewLayerHead } from '../shared/state.js';
import { ropeFigureModel } from './rope-figure.js';

/** The state keys that define an experiment: changing one means other models (checkpoints or training). */
export const EXPERIMENT_KEYS = ['task', 'seed', 'trainLength', 'layers', 'heads', 'dModel', 'steps'];
export const experimentChanged = (a, b) => EXPERIMENT_KEYS.some((k) => a[k] !== b[k]) || a.encodings.join() !== b.encodings.join();

/** "T = 64 (2× training)". */
export function lengthLabel(s) {
  const x = s.length / s.trainLength;
  return `T = ${s.length} (${Number.isInteger(x) ? x : x.toFixed(2)}× training)`;
}

/**
 * What a row says about where its model came from; a trained model says whether it met the experiment's
 * held-out target: "(learned at step 1200, held-out 0.984 ≥ 0.970)" or "(not learned in 5000 steps, held-out 0.812 < 0.970)".
 */
export function sourceLabel(source, run) {
  const learned = learnedWords(run), held = heldOutWords(run);
  return { untrained: '(untrained)', training: `(training, step ${run?.step ?? 0}${run?.steps ? `/${run.steps}` : ''}${held ? `, ${held}` : ''})`,
    trained: learned ? `(${learned}, ${held})` : `(trained ${run?.step} steps)`,
    stopped: `(stopped at step ${run?.step}${held ? `, ${held}` : ''})`, checkpoint: '(shipped checkpoint)' }[source] ?? '';
}

/**
 * `pe`: the page's posenc API (loaded). `state()`, `timeline()`: the explorer's current state and timeline
 * (state.js, timeline.js; functions, since the element replaces both when its attributes change).
 * `workers`, `prefix`: see createSweepClient; `concurrency`, `checkpoints`, `loadOptions`: see createTrainer.
 * A training snapshot (a model still learning, replaced every couple of seconds) and an untrained model
 * waiting to train are swept only at the length on screen when it arrives (`snapshotSweep: 'view'`, the default;
 * 'follow' also at each length the playhead reaches; 'all' at every length of the timeline: bench/train-page.js
 * compares them). A trained model
 * or a shipped checkpoint is swept at every length.
 * Callbacks: `onUpdate()` (something to draw), `onSource(enc, label)`, `onProgress(enc, run)`,
 * `onNotice(message)`, `onError(enc, message)`.
 */
export function createController({ pe, state: currentState, timeline: currentTimeline, workers, prefix, concurrency, checkpoints, loadOptions,
  snapshotSweep = 'view', onUpdate = () => {}, onSource = () => {}, onProgress = () => {}, onNotice = () => {}, onError = () => {} }) {
  const api = async () => pe;
  // What the sweep has sent back: results, and their cost in attention cells (sum of T^2), for bench/train-page.js.
  const sweepStats = { results: 0, cells: 0 };
  const counted = (encoding, kind, length) => {
    if (kind === 'result') {
      sweepStats.results++;
      sweepStats.cells += length * length;
    }
    onUpdate(encoding, kind, length);
  };
  const client = createSweepClient({ lut: lutFor(interpolateViridis), workers, prefix, api, onNotice, onUpdate: counted, onError });
  let scalingError = '';
  const snapshots = new Set(); // encodings whose current model is a training snapshot or untrained

  /** The trained RoPE model's base and head dim (the loaded model's, else the experiment's). */
  const ropeModel = () => ropeFigureModel(currentState(), client.info('rope')?.config ?? null);

  /** The RoPE scaling of the state if the core accepts it, else null (scalingError says why). */
  function validScaling() {
    const state = currentState();
    const sc = scalingObject(state);
    scalingError = '';
    if (!sc) return null;
    try {
      const { base, headDim } = ropeModel();
      pe.ropeFrequencies({ dim: headDim, base, scaling: sc, seqLen: currentTimeline().maxLength() });
      return sc;
    } catch (e) {
      scalingError = e.message;
      return null;
    }
  }

  /** What the sweep computes for an encoding. */
  const viewOf = (enc) => {
    const state = currentState();
    const lengths = snapshots.has(enc) && settings.snapshotSweep !== 'all' ? [state.length] : currentTimeline().ordered();
    return { lengths, scaling: enc === 'rope' ? validScaling() : null, ...viewLayerHead(state), task: state.task, seed: state.seed };
  };
  const requestSweep = (enc) => currentState().encodings.includes(enc) && client.request(enc, viewOf(enc));
  const requestAll = () => currentState().encodings.forEach(requestSweep);

  // Read when used, so a benchmark can change them between runs.
  const settings = { snapshotSweep };
  const trainer = createTrainer({
    api, concurrency, checkpoints, loadOptions, onNotice,
    vocabSize: (task) => pe.taskInfo(trainTask(task)).vocabSize,
    // A damaged shipped checkpoint is not used (that encoding trains instead), and onNotice says why.
    checkCheckpoint: (bytes) => pe.readCheckpoint(bytes),
    onModel: (enc, bytes, source) => {
      if (source === 'training' || source === 'untrained') snapshots.add(enc); // (untrained: replaced once it trains)
      else snapshots.delete(enc);
      client.setModel(enc, bytes ? { bytes } : { config: trainer.modelConfig(enc) });
      onSource(enc, sourceLabel(source, trainer.runs.get(enc)));
      requestSweep(enc);
      onUpdate();
    },
    onProgress,
  });

  return {
    client, trainer, viewOf, requestSweep, requestAll, validScaling, ropeModel, settings, sweepStats,
    scalingError: () => scalingError,
    /**
     * The length on screen changed. With snapshotSweep 'follow', training snapshots and untrained models are
     * swept there too; by default ('view') they wait for the next snapshot (at most snapshotMs later), since
     * sweeping every row at every length the playhead passes kept a core busy while models trained.
     */
    lengthChanged: () => settings.snapshotSweep === 'follow' && snapshots.forEach(requestSweep),
    /** Start the state's experiment: checkpoints where they match (unless `retrain`), else training. */
    begin: ({ retrain = false } = {}) => trainer.begin(currentState(), currentState().encodings, { retrain }),
    terminate() {
      trainer.stopAll();
      client.terminate();
    },
  };
}
