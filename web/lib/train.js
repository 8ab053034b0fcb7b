// A training loop over a task: warmup + cosine learning rate, progress
// reports, and cancellation between steps (an AbortSignal). It yields to the
// event loop every ~50 ms so a page or Worker stays responsive.
import * as v from './validate.js';
import { TASK_KEYS } from './tasks.js';
import { isModel, OPTIMIZER_KEYS } from './model.js';

const yieldToEventLoop = () => new Promise((resolve) => setTimeout(resolve, 0));

const MAX_STEP = Number.MAX_SAFE_INTEGER;

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
   * @returns {Promise<{steps, loss, accuracy, seconds, stopped}>}
   */
  async function train(model, opts) {
    if (!isModel(model))
      throw new TypeError(`model must be a Model from createModel or loadModel (got ${v.show(model)})`);
    const o = v.options('train options', opts);
    v.knownKeys('train options', o, [...TASK_KEYS, 'seed', 'steps', 'batch', 'length', 'lr', 'minLr',
      'warmup', 'onProgress', 'signal', 'progressEvery', 'targetAccuracy', ...OPTIMIZER_KEYS]);
    const steps = v.integer('steps', o.steps ?? 500, 1, 1e7);
    const batch = v.integer('batch', o.batch ?? 16, 1, 4096);
    const length = v.integer('length', o.length ?? model.config.maxLength, 1, 16384);
    const lr = v.number('lr', o.lr ?? 6e-3, { min: 0, max: 10 });
    const minLr = v.number('minLr', o.minLr ?? lr / 10, { min: 0, max: lr });
    const warmup = v.integer('warmup', o.warmup ?? Math.min(250, Math.floor(steps / 10)), 0, steps);
    const progressEvery = v.integer('progressEvery', o.progressEvery ?? 10, 1, 1e7);
    const target = o.targetAccuracy == null ? null : v.number('targetAccuracy', o.targetAccuracy, { min: 0, max: 1 });
    if (o.onProgress != null && typeof o.onProgress !== 'function') throw new TypeError(`onProgress must be a function (got ${v.show(o.onProgress)})`);
    if (o.signal != null && typeof o.signal.aborted !== 'boolean')
      throw new TypeError(`signal must be an AbortSignal (got ${v.show(o.signal)})`);
    // AdamW settings (beta1, beta2, ...): unset ones keep the model's (by default the experiment's).
    const optimizer = Object.fromEntries(OPTIMIZER_KEYS.filter((k) => o[k] != null).map((k) => [k, o[k]]));
    if (Object.keys(optimizer).length) model.setOptimizer(optimizer);
    const taskOptions = Object.fromEntries(TASK_KEYS.filter((k) => o[k] != null).map((k) => [k, o[k]]));
    const task = createTask({ ...taskOptions, seed: o.seed ?? 1 });
    if (task.vocabSize > model.config.vocabSize) {
      task.delete();
      throw new RangeError(`the ${task.task} task with these options uses ${task.vocabSize} tokens, more than the model's vocabSize ${model.config.vocabSize}`);
    }
    const t0 = performance.now();
    let last = performance.now(), step = 0, loss = NaN, accuracy = NaN, stopped = false;
    try {
      for (; step < steps; step++) {
        if (o.signal?.aborted) {
          stopped = true;
          break;
        }
        const { tokens, targets } = task.sample({ batch, length });
        loss = model.trainStep(tokens, targets, { batch, length, lr: lrAt(step, steps, warmup, lr, minLr) });
        accuracy = model.lastStep.accuracy;
        const done = step + 1 === steps || (target !== null && accuracy >= target);
        if (o.onProgress && ((step + 1) % progressEvery === 0 || done))
          o.onProgress({ step: step + 1, steps, loss, accuracy, seconds: (performance.now() - t0) / 1000 });
        if (target !== null && accuracy >= target) {
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
    return { steps: step, loss, accuracy, seconds: (performance.now() - t0) / 1000, stopped };
  }
  return { train, lrAt };
}
