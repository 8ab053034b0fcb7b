// The experiment the page trains and evaluates: the same settings as
// `npm run train` (cpp/tools/train_main.cpp, recorded in docs/results.json's
// config), so shipped checkpoints match the page's defaults and "Retrain"
// reproduces the experiment. tests/js/experiment-config.test.js checks that
// these stay equal to the recorded config.
export const EXPERIMENT = {
  mlpRatio: 3,
  // Model settings sized to trainLength 32 (spread into the model config): RoPE base 16 turns 3 of
  // the 4 pairs of head_dim 8 within 32 tokens; T5 16 buckets up to distance 32 are all reached.
  model: { ropeBase: 16, t5NumBuckets: 16, t5MaxDistance: 32 },
  // Per encoding, what differs from `model`: rope_random's positions span [0, 1024), so its base
  // follows the same rule for that range (3 of 4 pairs turn within 1024).
  modelByEncoding: { rope_random: { ropeBase: 10000 } },
  lr: 6e-3,
  minLr: 6e-4,
  warmup: 100,
  batch: 32,
  // The budget (the cosine schedule spans it) and the early stop: every checkEvery steps a
  // held-out batch of full-length sequences is scored, and training stops once it meets the
  // task's target + stopMargin (tasks[task].target in results.json; markov: a loss within
  // markovMargin - stopMargin / 2 nats of the ideal predictor's on that batch).
  steps: 5000,
  checkEvery: 100,
  stopMargin: 0.03,
  targets: { copy: 0.95, reverse: 0.95, retrieval: 0.95, kth_retrieval: 0.9 },
  markovMargin: 0.05,
  // The held-out batch of the early stop (results.json config.earlyStop.batch): this many full-length
  // sequences per task, drawn with seed checkSeed + seed.
  checkSequences: { copy: 64, reverse: 64, retrieval: 1024, kth_retrieval: 1024, markov: 64 },
  checkSeed: 6000,
  // Sequences a length of the shipped evaluation (results.json config.evaluation.sequences): the page's sweep
  // evaluates this many at the training length, where the "learned" verdict is read.
  evalSequences: 64,
  taskOptions: {
    copy: { symbols: 8, variableLength: true },
    reverse: { symbols: 8, variableLength: true },
    retrieval: { symbols: 16, variableLength: true, packed: true },
    kth_retrieval: { symbols: 16, variableLength: true }, // packed only
    markov: { symbols: 8, order: 2, branching: 3, tableSeed: 1 },
  },
};

/** The model settings of the experiment for encoding `enc` (spread into its model config). */
export const experimentModel = (enc) => ({ ...EXPERIMENT.model, ...EXPERIMENT.modelByEncoding[enc] });

/** createTask / train options of a task, as trained. */
export const trainTask = (task) => ({ task, ...EXPERIMENT.taskOptions[task] });
/**
 * train()'s `stop` for a task and seed: the experiment's held-out early stop (cpp/tools/train/training.cpp TargetCheck):
 * accuracy >= min(1, target + stopMargin), or for markov a loss within markovMargin - stopMargin / 2 of the oracle's.
 */
export function heldOutStop(task, seed) {
  const E = EXPERIMENT;
  const rule = task in E.targets ? { accuracy: Math.min(1, E.targets[task] + E.stopMargin) }
    : { lossAboveOracle: E.markovMargin - E.stopMargin / 2 };
  return { every: E.checkEvery, batch: E.checkSequences[task], seed: E.checkSeed + seed, ...rule };
}

/** As evaluated by the sweeps: full-length sequences. */
export const evalTask = (task) => ({ ...trainTask(task), variableLength: false });
