// train()'s held-out early stop (`stop`, the experiment's rule: cpp/tools/train/training.cpp TargetCheck) and
// task.oracle (C++ TaskGenerator::oracle): options checked with errors that name the field, a stop at the
// first check that meets the target (scored again here on a batch drawn independently), no stop when the
// target cannot be met, the markov oracle against the chain estimated from samples, and no leaks when
// training throws or is aborted.
import { loadPosenc, ENCODINGS } from '../../web/lib/index.js';
import { SCHEMA } from '../../web/app/shared/state.js';
import { EXPERIMENT, heldOutStop, trainTask } from '../../web/app/shared/experiment.js';
import { trainRequest, learnedWords, heldOutWords } from '../../web/app/lab/trainer.js';
import { sourceLabel } from '../../web/app/lab/controller.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const tiny = (encoding, task, extra = {}) => ({ encoding, vocabSize: pe.taskInfo({ task, ...extra }).vocabSize, maxLength: 8, layers: 1,
  heads: 2, dModel: 16, seed: 1, learnedPolicy: encoding === 'learned' ? 'clamp' : 'error' });
const COPY = { task: 'copy', symbols: 4 };
const MARKOV = { task: 'markov', symbols: 4, order: 1, branching: 2 };
const train = (model, task, extra) => pe.train(model, { ...task, steps: 1500, batch: 16, length: 8, lr: 1e-2, seed: 1, ...extra });

/** A held-out batch drawn here as train() is documented to draw it. */
function heldOut(task, { seed, batch }, length) {
  const gen = pe.createTask({ ...task, variableLength: false, seed });
  try {
    const s = gen.sample({ batch, length });
    return { ...s, oracle: gen.oracle({ ...s, batch, length }) };
  } finally {
    gen.delete();
  }
}

describe('stop: validation names the field and its range, before any step', () => {
  const cases = [
    [{ stop: 'x' }, TypeError, /^stop must be an options object/],
    [{ stop: { seed: 5, accuracy: 0.9, often: 1 } }, RangeError, /^stop has an unknown option "often": allowed every, batch, seed, accuracy, lossAboveOracle/],
    [{ stop: { every: 0, seed: 5, accuracy: 0.9 } }, RangeError, /^stop\.every must be an integer in \[1, 10000000\] \(got 0\)/],
    [{ stop: { every: '5', seed: 5, accuracy: 0.9 } }, TypeError, /^stop\.every must be an integer in \[1, 10000000\] \(got "5"\)/],
    [{ stop: { batch: 4097, seed: 5, accuracy: 0.9 } }, RangeError, /^stop\.batch must be an integer in \[1, 4096\]/],
    [{ stop: { batch: 1.5, seed: 5, accuracy: 0.9 } }, RangeError, /^stop\.batch must be an integer/],
    [{ stop: { accuracy: 0.9 } }, TypeError, /^stop\.seed must be an integer in \[0, 9007199254740991\] \(got undefined\)/],
    [{ stop: { seed: -1, accuracy: 0.9 } }, RangeError, /^stop\.seed must be an integer in \[0, /],
    [{ seed: 4, stop: { seed: 4, accuracy: 0.9 } }, RangeError, /^stop\.seed must differ from seed \(4, the training data's\)/],
    [{ stop: { seed: 5 } }, TypeError, /^stop needs exactly one of stop\.accuracy .*stop\.lossAboveOracle/],
    [{ stop: { seed: 5, accuracy: 0.9, lossAboveOracle: 0.1 } }, RangeError, /^stop needs exactly one of stop\.accuracy/],
    [{ stop: { seed: 5, accuracy: 1.01 } }, RangeError, /^stop\.accuracy must be a finite number >= 0 and <= 1 \(got 1\.01\)/],
    [{ stop: { seed: 5, accuracy: NaN } }, RangeError, /^stop\.accuracy must be a finite number/],
    [{ stop: { seed: 5, accuracy: '0.9' } }, TypeError, /^stop\.accuracy must be a finite number/],
    [{ stop: { seed: 5, lossAboveOracle: -0.1 } }, RangeError, /^stop\.lossAboveOracle must be a finite number >= 0 and <= 1000/],
    [{ stop: { seed: 5, lossAboveOracle: Infinity } }, RangeError, /^stop\.lossAboveOracle must be a finite number/],
  ];
  test.each(cases)('%j', async (extra, Kind, message) => {
    const m = pe.createModel(tiny('alibi', 'copy', COPY));
    const heap = pe.heapBytes();
    const steps = [];
    try {
      const p = train(m, COPY, { ...extra, onProgress: (s) => steps.push(s.step) });
      await expect(p).rejects.toThrow(Kind);
      await expect(p).rejects.toThrow(message);
      expect(steps).toEqual([]);
      expect(pe.heapBytes()).toBe(heap);
      // the model still trains afterwards
      const r = await train(m, COPY, { steps: 2, stop: { every: 1, seed: 5, accuracy: 0.99 } });
      expect(r.steps).toBe(2);
    } finally {
      m.delete();
    }
  });
});

test('stops at the first held-out check that meets the accuracy, and that check is the batch as documented', async () => {
  const m = pe.createModel(tiny('learned', 'copy', COPY));
  try {
    const stop = { every: 25, batch: 64, seed: 2, accuracy: 0.95 };
    const checks = [];
    const r = await train(m, COPY, { stop, progressEvery: 1, onProgress: (p) => checks.push(p.heldOut) });
    expect(r.stepsToTarget).not.toBeNull();
    expect(r.steps).toBe(r.stepsToTarget);
    expect(r.stepsToTarget % stop.every).toBe(0);
    expect(r.steps).toBeLessThan(1500); // it did stop early
    expect(r.heldOut).toMatchObject({ step: r.steps, met: true, oracleLoss: null });
    expect(r.heldOut.accuracy).toBeGreaterThanOrEqual(stop.accuracy);
    // Every earlier check ran at a multiple of `every` and did not meet the target.
    const distinct = [...new Map(checks.filter(Boolean).map((h) => [h.step, h])).values()];
    expect(distinct.map((h) => h.step)).toEqual(Array.from({ length: r.steps / stop.every }, (_, i) => (i + 1) * stop.every));
    expect(distinct.slice(0, -1).every((h) => !h.met && h.accuracy < stop.accuracy)).toBe(true);
    // The trained model scored here on a batch drawn as documented gives the same numbers.
    const b = heldOut(COPY, stop, 8);
    const e = m.evaluate(b.tokens, b.targets, { batch: stop.batch, length: 8 });
    expect(e.accuracy).toBe(r.heldOut.accuracy);
    expect(e.loss).toBe(r.heldOut.loss);
    // ... which differs from what training drew (variableLength: true there, another seed): not a training batch.
    const t = pe.createTask({ ...COPY, seed: 1 });
    expect(Buffer.from(t.sample({ batch: stop.batch, length: 8 }).tokens.buffer).equals(Buffer.from(b.tokens.buffer))).toBe(false);
    t.delete();
  } finally {
    m.delete();
  }
});

test('a held-out batch larger than one evaluation chunk (256 sequences) is scored in chunks: the whole batch\'s numbers', async () => {
  const m = pe.createModel(tiny('rope', 'copy', COPY));
  try {
    const stop = { every: 10, batch: 600, seed: 3, accuracy: 1 }; // chunks of 256, 256 and 88
    const r = await train(m, COPY, { steps: 30, stop });
    expect(r.heldOut).toMatchObject({ step: 30, met: false });
    const b = heldOut(COPY, stop, 8);
    const e = m.evaluate(b.tokens, b.targets, { batch: stop.batch, length: 8 });
    expect(e.scored).toBeGreaterThan(600);
    expect(r.heldOut.accuracy).toBeCloseTo(e.accuracy, 6);
    expect(r.heldOut.loss).toBeCloseTo(e.loss, 5);
    expect(r.heldOut.accuracy).toBeGreaterThan(0.1); // (a real score, not an empty one)
  } finally {
    m.delete();
  }
});

test('an unreachable target trains the whole budget, checks after the last step, and says it was not met', async () => {
  // markov with branching 2: the next symbol is random, so no model is right on every held-out position.
  const m = pe.createModel(tiny('alibi', 'markov', MARKOV));
  try {
    const stop = { every: 40, batch: 32, seed: 9, accuracy: 1 };
    const r = await train(m, MARKOV, { steps: 100, stop });
    expect(r).toMatchObject({ steps: 100, stopped: false, stepsToTarget: null });
    expect(r.heldOut).toMatchObject({ step: 100, met: false, oracleLoss: null }); // 40, 80 and the last step
    expect(r.heldOut.accuracy).toBeLessThan(1);
  } finally {
    m.delete();
  }
});

test('lossAboveOracle: stops once the held-out loss is within the margin of the oracle on that batch', async () => {
  const m = pe.createModel(tiny('alibi', 'markov', MARKOV));
  try {
    const stop = { every: 25, batch: 64, seed: 3, lossAboveOracle: 0.05 };
    const r = await train(m, MARKOV, { stop });
    const b = heldOut(MARKOV, stop, 8);
    expect(r.heldOut.oracleLoss).toBe(b.oracle.loss);
    expect(r.stepsToTarget).not.toBeNull();
    expect(r.heldOut.loss).toBeLessThanOrEqual(b.oracle.loss + stop.lossAboveOracle);
    expect(m.evaluate(b.tokens, b.targets, { batch: stop.batch, length: 8 }).loss).toBe(r.heldOut.loss);
    // margin 0: the oracle's own loss, which a model does not beat on 64 sequences here: the whole budget
    const m0 = pe.createModel(tiny('alibi', 'markov', MARKOV));
    const r0 = await train(m0, MARKOV, { steps: 60, stop: { ...stop, lossAboveOracle: 0 } });
    m0.delete();
    expect(r0).toMatchObject({ steps: 60, stepsToTarget: null });
    expect(r0.heldOut.loss).toBeGreaterThan(r0.heldOut.oracleLoss);
  } finally {
    m.delete();
  }
});

describe('task.oracle', () => {
  test('copy / reverse / retrievals: loss 0, accuracy 1 over exactly the scored targets', () => {
    for (const o of [{ task: 'copy' }, { task: 'reverse' }, { task: 'retrieval', symbols: 16 }, { task: 'kth_retrieval', symbols: 16 }]) {
      const t = pe.createTask({ ...o, variableLength: true, seed: 4 });
      const s = t.sample({ batch: 8, length: 24 });
      expect(t.oracle({ ...s, batch: 8, length: 24 })).toEqual({ loss: 0, accuracy: 1, scored: s.targets.filter((y) => y >= 0).length });
      t.delete();
    }
  });

  test('markov: equals the entropy and top probability of the chain estimated from 2 million sampled transitions', () => {
    const o = { task: 'markov', symbols: 6, order: 2, branching: 3, tableSeed: 7 };
    const t = pe.createTask({ ...o, seed: 11 });
    const first = t.firstSymbol, S = o.symbols;
    // counts[context][next] from big samples (order 2: the context is the last two symbols)
    const counts = Array.from({ length: S * S }, () => new Float64Array(S));
    for (let round = 0; round < 8; round++) {
      const { tokens, targets } = t.sample({ batch: 4096, length: 64 });
      for (let i = 0; i < targets.length; i++) {
        if (targets[i] < 0) continue;
        counts[(tokens[i - 1] - first) * S + (tokens[i] - first)][targets[i] - first]++;
      }
    }
    const rows = counts.map((c) => {
      const n = c.reduce((a, b) => a + b, 0);
      const p = [...c].filter((x) => x > 0).map((x) => x / n);
      return { n, support: p.length, entropy: -p.reduce((a, q) => a + q * Math.log(q), 0), top: Math.max(...p) };
    });
    // (a sparse chain: a pair of symbols that never follows another is never a context)
    const reached = rows.filter((r) => r.n > 0);
    expect(reached.length).toBeGreaterThan(S);
    expect(reached.every((r) => r.n > 200 && r.support <= o.branching)).toBe(true); // at most 3 successors each
    expect(reached.filter((r) => r.support === o.branching).length).toBeGreaterThan(reached.length * 0.9);
    const batch = 64, length = 32;
    const s = t.sample({ batch, length });
    const got = t.oracle({ ...s, batch, length });
    let loss = 0, accuracy = 0, scored = 0;
    for (let i = 0; i < s.targets.length; i++) {
      if (s.targets[i] < 0) continue;
      const r = rows[(s.tokens[i - 1] - first) * S + (s.tokens[i] - first)];
      expect(r.n).toBeGreaterThan(200);
      loss += r.entropy;
      accuracy += r.top;
      scored++;
    }
    expect(got.scored).toBe(scored);
    expect(Math.abs(got.loss - loss / scored)).toBeLessThan(0.01);
    expect(Math.abs(got.accuracy - accuracy / scored)).toBeLessThan(0.01);
    t.delete();
  });

  test('markov: a trained model\'s held-out loss is not below the oracle\'s', async () => {
    const m = pe.createModel(tiny('rope', 'markov', MARKOV));
    try {
      await train(m, MARKOV, { steps: 300 });
      const b = heldOut(MARKOV, { seed: 21, batch: 1024 }, 8);
      const e = m.evaluate(b.tokens, b.targets, { batch: 1024, length: 8 });
      expect(b.oracle.loss).toBeGreaterThan(0.3); // (branching 2: a real entropy)
      expect(e.loss).toBeGreaterThanOrEqual(b.oracle.loss - 0.005);
      expect(e.accuracy).toBeLessThanOrEqual(b.oracle.accuracy + 0.02);
    } finally {
      m.delete();
    }
  });

  test('bad batches are TypeError / RangeError naming the argument, nothing leaks, the task still works', () => {
    const t = pe.createTask({ ...MARKOV, seed: 1 });
    const s = t.sample({ batch: 2, length: 8 });
    const ok = { ...s, batch: 2, length: 8 };
    const heap = pe.heapBytes();
    const bad = (o, Kind, message) => {
      expect(() => t.oracle(o)).toThrow(Kind);
      expect(() => t.oracle(o)).toThrow(message);
    };
    bad(null, TypeError, /^oracle options must be an options object/);
    bad({ ...ok, extra: 1 }, RangeError, /^oracle options has an unknown option "extra"/);
    bad({ ...ok, length: 2 }, RangeError, /^length must be an integer in \[3, 16384\]/);
    bad({ ...ok, batch: 0 }, RangeError, /^batch must be an integer in \[1, 4096\]/);
    bad({ ...ok, tokens: s.tokens.subarray(1) }, RangeError, /^tokens must have length 16 \(got 15\)/);
    bad({ ...ok, tokens: 'x' }, TypeError, /^tokens must be a Int32Array or an array of integers/);
    bad({ ...ok, targets: undefined }, TypeError, /^targets must be a Int32Array/);
    bad({ ...ok, tokens: Int32Array.from(s.tokens, (x, i) => (i === 3 ? 99 : x)) }, RangeError, /^tokens\[3\] must be an integer in \[0, 6\]/);
    bad({ ...ok, targets: Int32Array.from(s.targets, (y, i) => (i === 0 ? -2 : y)) }, RangeError, /^targets\[0\] must be an integer in \[-1, 6\]/);
    // markov: a scored position needs its context of `order` task symbols
    bad({ ...ok, targets: Int32Array.from(s.targets, (y, i) => (i === 0 ? 3 : y)) }, RangeError,
      /^tokens\[0\] must be a markov symbol in \[3, 6\] \(it is in the context of the scored targets\[0\]; got 1\)/);
    const order2 = pe.createTask({ task: 'markov', symbols: 4, order: 2, seed: 1 });
    const s2 = order2.sample({ batch: 1, length: 8 });
    expect(() => order2.oracle({ ...s2, length: 8, targets: Int32Array.from(s2.targets, (y, i) => (i === 0 ? 3 : y)) }))
      .toThrow(/^targets\[0\] scores position 0 of its sequence, before the markov context of order 2 is complete/);
    order2.delete();
    expect(pe.heapBytes()).toBe(heap);
    expect(t.oracle(ok).scored).toBe(s.targets.filter((y) => y >= 0).length);
    t.delete();
    expect(() => t.oracle(ok)).toThrow(/^this task has been deleted/);
  });
});

describe('no leaks when training with a stop throws or is aborted', () => {
  const stop = { every: 2, batch: 16, seed: 7, accuracy: 0.999 };
  let heap;
  beforeAll(async () => {
    const warm = pe.createModel(tiny('alibi', 'copy', COPY)); // one-time allocations (kernel scratch)
    await train(warm, COPY, { steps: 4, stop });
    warm.delete();
    heap = pe.heapBytes();
  });

  test('onProgress throws at a held-out check', async () => {
    const m = pe.createModel(tiny('alibi', 'copy', COPY));
    await expect(train(m, COPY, { stop, progressEvery: 1, onProgress: (p) => {
      if (p.heldOut) throw new Error('from onProgress');
    } })).rejects.toThrow('from onProgress');
    m.delete();
    expect(pe.heapBytes()).toBe(heap);
  });

  test('aborted mid-way: stopped, the last check kept, nothing leaks', async () => {
    const m = pe.createModel(tiny('alibi', 'copy', COPY));
    const ac = new AbortController();
    const r = await train(m, COPY, { stop, signal: ac.signal, progressEvery: 1, onProgress: (p) => p.step === 5 && ac.abort() });
    expect(r).toMatchObject({ steps: 5, stopped: true, stepsToTarget: null });
    expect(r.heldOut.step).toBe(4);
    m.delete();
    expect(pe.heapBytes()).toBe(heap);
  });

  test('the task is too big for the model: RangeError, nothing leaks', async () => {
    const m = pe.createModel(tiny('alibi', 'copy', COPY));
    await expect(train(m, { task: 'copy', symbols: 40 }, { stop })).rejects.toThrow(/uses 43 tokens, more than the model's vocabSize 7/);
    m.delete();
    expect(pe.heapBytes()).toBe(heap);
  });
});

test('the page asks train() for the experiment\'s budget and held-out stop (every number from EXPERIMENT)', () => {
  for (const task of Object.keys(EXPERIMENT.taskOptions)) {
    const e = { task, seed: 17, trainLength: 64, layers: 2, heads: 4, dModel: 32, steps: EXPERIMENT.steps };
    const { train: t } = trainRequest('rope', e, { vocabSize: pe.taskInfo(trainTask(task)).vocabSize });
    expect(t.steps).toBe(EXPERIMENT.steps);
    expect(t.stop).toEqual(heldOutStop(task, 17));
    expect(t.stop.every).toBe(EXPERIMENT.checkEvery);
    expect(t.stop.seed).toBe(EXPERIMENT.checkSeed + 17);
    expect(t.stop.batch).toBe(EXPERIMENT.checkSequences[task]);
    if (task === 'markov') expect(t.stop.lossAboveOracle).toBeCloseTo(EXPERIMENT.markovMargin - EXPERIMENT.stopMargin / 2, 12);
    else expect(t.stop.accuracy).toBe(Math.min(1, EXPERIMENT.targets[task] + EXPERIMENT.stopMargin));
  }
});

test('the page\'s words for a run: when it stopped, the held-out number against the stop rule (no verdict: evaluations.js gives it)', () => {
  const copy = heldOutStop('copy', 1), markov = heldOutStop('markov', 1);
  const need = copy.accuracy.toFixed(3);
  const check = (h) => ({ step: 1200, loss: 0.5, oracleLoss: null, ...h });
  const learned = { status: 'trained', step: 1200, steps: 5000, learned: true, stepsToTarget: 1200, stop: copy,
    heldOut: check({ accuracy: 0.98412, met: true }) };
  expect(learnedWords(learned)).toBe('stopped early at step 1200');
  expect(sourceLabel('trained', learned)).toBe(`(stopped early at step 1200, check on new sequences 0.984 ≥ ${need})`);
  const not = { ...learned, step: 5000, learned: false, stepsToTarget: null, heldOut: check({ step: 5000, accuracy: 0.8116, met: false }) };
  expect(sourceLabel('trained', not)).toBe(`(ran all 5000 steps, check on new sequences 0.812 < ${need})`);
  const m = { ...not, stop: markov, heldOut: check({ step: 5000, accuracy: 0.4, loss: 1.2, oracleLoss: 0.99, met: false }) };
  expect(heldOutWords(m)).toBe(`loss on new sequences 1.200 > ${(0.99 + markov.lossAboveOracle).toFixed(3)}`);
  expect(heldOutWords({ ...m, heldOut: { ...m.heldOut, loss: 1.01, met: true } })).toBe(`loss on new sequences 1.010 ≤ ${(0.99 + markov.lossAboveOracle).toFixed(3)}`);
  // while training: the step out of the budget and the latest check
  expect(sourceLabel('training', { ...not, status: 'training', step: 300, learned: null, heldOut: check({ step: 300, accuracy: 0.5, met: false }) }))
    .toBe(`(training, step 300/5000, check on new sequences 0.500 < ${need})`);
  expect(sourceLabel('training', { step: 0, steps: 5000, heldOut: null })).toBe('(training, step 0/5000)');
  // no held-out check (or a run stopped by the user): no verdict
  expect(learnedWords({ ...not, heldOut: null })).toBeNull();
  expect(sourceLabel('trained', { step: 80, heldOut: null })).toBe('(trained 80 steps)');
  expect(learnedWords({ ...not, learned: null })).toBeNull();
  expect(sourceLabel('stopped', { ...not, step: 700, learned: null, heldOut: check({ step: 700, accuracy: 0.6, met: false }) }))
    .toBe(`(stopped at step 700, check on new sequences 0.600 < ${need})`);
});

// Issue 26: a randomized model refused the sweep's longest lengths (trainLength 128 x 16 = 2048 past randomLength
// 1024). Every model the page trains runs a forward at the longest length the page can sweep to, for every
// training length it offers; and the experiment's own setting keeps the recorded randomLength.
test('every model the page trains runs at the longest length the page sweeps to', () => {
  const factor = Math.max(...SCHEMA.sweepFactor.values);
  const vocabSize = pe.taskInfo(trainTask('copy')).vocabSize;
  for (const trainLength of SCHEMA.trainLength.values) {
    const e = { task: 'copy', seed: 1, trainLength, layers: 1, heads: 1, dModel: 32, steps: 100 };
    for (const enc of ENCODINGS) {
      const m = pe.createModel(trainRequest(enc, e, { vocabSize }).model);
      try {
        const T = trainLength * factor;
        const tokens = new Int32Array(T).map((_, i) => i % vocabSize);
        expect([enc, trainLength, m.forward(tokens, { batch: 1, length: T }).logits.length]).toEqual([enc, trainLength, T * vocabSize]);
      } finally {
        m.delete();
      }
    }
  }
  const recorded = trainRequest('rope_random', { task: 'copy', seed: 1, trainLength: SCHEMA.trainLength.def, layers: 3, heads: 4, dModel: 32, steps: 100 }, { vocabSize });
  expect(recorded.model.randomLength).toBe(1024);
});
