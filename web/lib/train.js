// A training loop over a task: warmup + cosine learning rate, progress
// reports, cancellation between steps (an AbortSignal), and an early stop on
// a held-out batch (`stop`, as `npm run train` does: cpp/tools/train/training.cpp
// TargetCheck). It yields to the event loop every ~50 ms so a page or Worker
// stays responsive.
import * as v from './validate.js';
import { TASK_KEYS } from './tasks.js';
import { isModel, OPTIMIZER_KEYS } from './model.js';
import { yieldToEventLoop } from './yield.js';

const MAX_STEP = Number.MAX_SAFE_INTEGER;
const STOP_KEYS = ['every', 'batch', 'seed', 'accuracy', 'lossAboveOracle'];

/**
 * The `stop` option, checked: {every, batch, seed, accuracy} or {every, batch, seed, lossAboveOracle}.
 * `seed` (required) must differ from the training data's, or the held-out batch is a training batch.
 */
function stopOptions(value, trainSeed) {
  const o = v.options('stop', value);
  v.knownKeys('stop', o, STOP_KEYS);
  const every = v.integer('stop.every', o.every ?? 100, 1, 1e7);
  const batch = v.integer('stop.batch', o.batch ?? 64, 1, 4096);
  const seed = v.integer('stop.seed', o.seed, 0, Number.MAX_SAFE_INTEGER);
  if (seed === trainSeed)
    throw new RangeError(`stop.seed must differ from seed (${trainSeed}, the training data's): the held-out batch would be drawn like a training batch`);
  const hasAccuracy = o.accuracy != null, hasLoss = o.lossAboveOracle != null;
  if (hasAccuracy === hasLoss)
    throw new (hasAccuracy ? RangeError : TypeError)('stop needs exactly one of stop.accuracy (a held-out accuracy in [0, 1] to reach) ' +
      'or stop.lossAboveOracle (a held-out loss within this many nats of the ideal predictor\'s, in [0, 1000])');
  return {
    every, batch, seed,
    accuracy: hasAccuracy ? v.number('stop.accuracy', o.accuracy, { min: 0, max: 1 }) : null,
    lossAboveOracle: hasLoss ? v.number('stop.lossAboveOracle', o.lossAboveOracle, { min: 0, max: 1000 }) : null,
  };
}

export function createTrainer(mod, { createTask }) {
  /**
   * The learning rate of warmup + cosine decay at `step` (as train() uses). Checked
   * here: the core's own checks would surface as a bare C++ exception.
   */
  function lrAt(step, total, warmup, maxLr, minLr) {
    v.integer('step', step, 0, MAX_STEP);
    v.integer('total', total, 1, MAX_STEP);
    v.integer('warmup', warmup, 0, MAX_STEP);
    v.number('maxLr', maxLr, { min: 0, max: v.FLOAT32_MAX });
    v.number('minLr', minLr, { min: 0, max: maxLr });
    return mod.lrAt(step, total, warmup, maxLr, minLr);
  }

  /**
   * With `stop` ({every, batch, seed} and one of accuracy / lossAboveOracle), a held-out batch of `stop.batch`
   * full-length sequences (the same task options with variableLength: false, drawn once with `stop.seed`) is
   * scored with model.evaluate every `stop.every` steps and after the last step; training stops at the first
   * check whose accuracy >= stop.accuracy, or whose loss <= the task oracle's loss on that batch + stop.lossAboveOracle.
   * `targetAccuracy` (older, kept) instead stops once one training batch's accuracy reaches it.
   * @returns {Promise<{steps, loss, accuracy, seconds, stopped, stepsToTarget, heldOut}>} stepsToTarget: the
   *   step of the check that met `stop` (null if none did, or no `stop`); heldOut: the last check
   *   {step, loss, accuracy, oracleLoss (null without lossAboveOracle), met}, or null.
   */
  async function train(model, opts) {
    if (!isModel(model))
      throw new TypeError(`model must be a Model from createModel or loadModel (got ${v.show(model)})`);
    const o = v.options('train options', opts);
    v.knownKeys('train options', o, [...TASK_KEYS, 'seed', 'steps', 'batch', 'length', 'lr', 'minLr',
      'warmup', 'onProgress', 'signal', 'progressEvery', 'targetAccuracy', 'stop', ...OPTIMIZER_KEYS]);
    const steps = v.integer('steps', o.steps ?? 500, 1, 1e7);
    const batch = v.integer('batch', o.batch ?? 16, 1, 4096);
    const length = v.integer('length', o.length ?? model.config.maxLength, 1, 16384);
    const lr = v.number('lr', o.lr ?? 6e-3, { min: 0, max: 10 });
    const minLr = v.number('minLr', o.minLr ?? lr / 10, { min: 0, max: lr });
    const warmup = v.integer('warmup', o.warmup ?? Math.min(250, Math.floor(steps / 10)), 0, steps);
    const progressEvery = v.integer('progressEvery', o.progressEvery ?? 10, 1, 1e7);
    const target = o.targetAccuracy == null ? null : v.number('targetAccuracy', o.targetAccuracy, { min: 0, max: 1 });
    const seed = o.seed ?? 1;
    const stop = o.stop == null ? null : stopOptions(o.stop, seed);
    if (o.onProgress != null && typeof o.onProgress !== 'function') throw new TypeError(`onProgress must be a function (got ${v.show(o.onProgress)})`);
    if (o.signal != null && typeof o.signal.aborted !== 'boolean')
      throw new TypeError(`signal must be an AbortSignal (got ${v.show(o.signal)})`);
    // AdamW settings (beta1, beta2, ...): unset ones keep the model's (by default the experiment's).
    const optimizer = Object.fromEntries(OPTIMIZER_KEYS.filter((k) => o[k] != null).map((k) => [k, o[k]]));
    if (Object.keys(optimizer).length) model.setOptimizer(optimizer);
    const taskOptions = Object.fromEntries(TASK_KEYS.filter((k) => o[k] != null).map((k) => [k, o[k]]));
    const t0 = performance.now();
    let last = performance.now(), step = 0, loss = NaN, accuracy = NaN, stopped = false;
    let stepsToTarget = null, heldOut = null;
    const task = createTask({ ...taskOptions, seed });
    try {
      if (task.vocabSize > model.config.vocabSize)
        throw new RangeError(`the ${task.task} task with these options uses ${task.vocabSize} tokens, more than the model's vocabSize ${model.config.vocabSize}`);
      const check = stop && heldOutBatch(taskOptions, stop, length);
      for (; step < steps; step++) {
        if (o.signal?.aborted) {
          stopped = true;
          break;
        }
        const { tokens, targets } = task.sample({ batch, length });
        loss = model.trainStep(tokens, targets, { batch, length, lr: lrAt(step, steps, warmup, lr, minLr) });
        accuracy = model.lastStep.accuracy;
        const n = step + 1;
        if (check && (n % stop.every === 0 || n === steps)) {
          heldOut = check.score(model, n);
          if (heldOut.met) stepsToTarget = n;
        }
        const reached = stepsToTarget !== null || (target !== null && accuracy >= target);
        if (o.onProgress && (n % progressEvery === 0 || n === steps || reached))
          o.onProgress({ step: n, steps, loss, accuracy, seconds: (performance.now() - t0) / 1000, heldOut });
        if (reached) {
          step++;
          break;
        }
        if (performance.now() - last > 50) {
          await yieldToEventLoop();
          last = performance.now();
        }
      }
    } finally {
      task.delete();
    }
    return { steps: step, loss, accuracy, seconds: (performance.now() - t0) / 1000, stopped, stepsToTarget, heldOut };
  }
  /**
   * The held-out batch of `stop`, drawn once (its generator is freed at once): score(model, step) evaluates
   * the model on it and says whether the stop rule is met.
   */
  function heldOutBatch(taskOptions, stop, length) {
    const gen = createTask({ ...taskOptions, variableLength: false, seed: stop.seed });
    let sample, oracleLoss = null;
    try {
      sample = gen.sample({ batch: stop.batch, length });
      if (stop.lossAboveOracle !== null) oracleLoss = gen.oracle({ ...sample, batch: stop.batch, length }).loss;
    } finally {
      gen.delete();
    }
    // Scored in chunks of CHECK_CHUNK sequences (1024 retrieval sequences of a large model at length 128 would
    // pass the module's activation limit in one call): accuracy = correct / scored over all of them.
    const CHECK_CHUNK = 256;
    return {
      score(model, step) {
        const parts = [];
        for (let b0 = 0; b0 < stop.batch; b0 += CHECK_CHUNK) {
          const b = Math.min(CHECK_CHUNK, stop.batch - b0), at = b0 * length, end = at + b * length;
          parts.push(model.evaluate(sample.tokens.subarray(at, end), sample.targets.subarray(at, end), { batch: b, length }));
        }
        const scored = parts.reduce((s, r) => s + r.scored, 0);
        const { loss, accuracy } = parts.length === 1 ? parts[0] : {
          loss: scored > 0 ? parts.reduce((s, r) => s + r.loss * r.scored, 0) / scored : 0,
          accuracy: scored > 0 ? parts.reduce((s, r) => s + r.correct, 0) / scored : 0,
        };
        const met = stop.accuracy !== null ? accuracy >= stop.accuracy : loss <= oracleLoss + stop.lossAboveOracle;
        return { step, loss, accuracy, oracleLoss, met };
      },
    };
  }

  return { train, lrAt };
}
