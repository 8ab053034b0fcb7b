// The experiment the page trains and evaluates: the same settings as
// `npm run train` (cpp/tools/train_main.cpp, recorded in docs/results.json's
// config), so shipped checkpoints match the page's defaults and "Retrain"
// reproduces the experiment. tests/js/experiment-config.test.js checks that
// these stay equal to the recorded config.
export const EXPERIMENT = {
  mlpRatio: 3,
  lr: 6e-3,
  minLr: 6e-4,
  warmup: 250,
  batch: 32,
  taskOptions: {
    copy: { symbols: 8, variableLength: true },
    reverse: { symbols: 8, variableLength: true },
    retrieval: { symbols: 16, variableLength: true, packed: true },
    markov: { symbols: 8, order: 2, branching: 3, tableSeed: 1 },
  },
};

/** createTask / train options of a task, as trained. */
export const trainTask = (task) => ({ task, ...EXPERIMENT.taskOptions[task] });
/** As evaluated by the sweeps: full-length sequences. */
export const evalTask = (task) => ({ ...trainTask(task), variableLength: false });
