// Seeded task generators (implemented in C++, so native and wasm training
// see the same batches). See cpp/include/posenc/tasks.hpp for the full text.
//
// Vocabulary (every task): 0 PAD, 1 BOS, 2 SEP, then the `symbols` task symbols
// from 3 (packed retrieval adds one token per key-value pair after them; use
// `vocabSize`). Targets are next-token ids, -1 where not scored; a scored
// position is correct when the model's argmax equals its target.
//
//  copy       [BOS, x1..xh, SEP, x1..xh, PAD...]; scored: the h copied predictions.
//  reverse    [BOS, x1..xh, SEP, xh..x1, PAD...]; scored: the h reversed predictions
//             (same draws as copy for the same seed).
//  retrieval  key-value pairs, then SEP, a query key and its value. Keys are the first
//             ceil(symbols/2) symbols, values the rest; the queried pair (the needle)
//             sits at `depth` (0 = first pair, 1 = last pair; random when unset) and its
//             key appears nowhere else. `packed` (default): one token per pair
//             [BOS, P1..Pp, SEP, q, a]; packed: false: two tokens [BOS, k1 v1 .. kp vp, SEP, q, a].
//             Scored: the query position only (plus repeated keys with scoreRepeats,
//             two-token layout).
//  kth_retrieval  packed pairs where the query key occurs exactly twice, with two values,
//             then SEP, one query token for (key, first | second) and the value of that
//             occurrence: [BOS, P1..Pp, SEP, Q, a]. The answer depends on the order of the pairs
//             (swapping the two occurrences keeps every token and changes it); content alone
//             scores 1/2. `depth` places the asked occurrence. Scored: the query position;
//             a shorter sequence (variableLength) fills the room after the answer with further
//             queries about other keys that occur twice, each scored (a denser training signal;
//             full-length sequences have none).
//  markov     [BOS, x1, x2, ...] from a fixed sparse Markov chain of `order` over the
//             symbols (`branching` next symbols per context), chosen by `tableSeed` and
//             shared by every `seed`; scored from position `order` on. Random targets:
//             an ideal model's accuracy is below 1.
//
// task.oracle(batch) scores the ideal predictor (C++ TaskGenerator::oracle) on a batch:
// for copy, reverse and the retrievals loss 0 and accuracy 1; for markov the mean entropy
// of the chain's next-symbol distribution and the mean of its largest probability.
import * as v from './validate.js';
import { scope, check } from './memory.js';

/** Task names, in the order of the C++ enum posenc::TaskKind. */
export const TASKS = ['copy', 'reverse', 'retrieval', 'markov', 'kth_retrieval'];

export const TASK_KEYS = ['task', 'symbols', 'variableLength', 'depth', 'packed', 'scoreRepeats', 'order', 'branching',
  'tableSeed'];

const MARKOV = TASKS.indexOf('markov');
// The markov oracle reads the `order` tokens ending at each scored position as a context of
// the chain: each must be a symbol, and the context must fit in the sequence.
function markovContexts(tokens, targets, length, [symbols, , , , , order], first) {
  for (let i = 0; i < targets.length; i++) {
    if (targets[i] < 0) continue;
    const t = i % length;
    if (t < order - 1)
      throw new RangeError(`targets[${i}] scores position ${t} of its sequence, before the markov context of order ${order} is complete (position >= ${order - 1}); use -1 there`);
    for (let j = i - order + 1; j <= i; j++) {
      if (tokens[j] < first || tokens[j] >= first + symbols)
        throw new RangeError(`tokens[${j}] must be a markov symbol in [${first}, ${first + symbols - 1}] (it is in the context of the scored targets[${i}]; got ${tokens[j]})`);
    }
  }
}

export function createTaskApi(mod) {
  const registry = new FinalizationRegistry((handle) => mod.taskDelete(handle));

  // The wasm argument list after `kind`: symbols, variableLength, depth (NaN = unset),
  // packed, scoreRepeats, order, branching, tableSeed. Ranges that depend on other
  // options (e.g. branching <= symbols) are checked in C++.
  function taskArgs(o) {
    const kind = TASKS.indexOf(v.oneOf('task', o.task ?? 'copy', TASKS));
    const symbols = v.integer('symbols', o.symbols ?? 8, 1, 65000);
    const variableLength = v.boolean('variableLength', o.variableLength ?? false);
    const depth = o.depth === undefined || o.depth === null ? NaN : v.number('depth', o.depth, { min: 0, max: 1 });
    const packed = v.boolean('packed', o.packed ?? true);
    const scoreRepeats = v.boolean('scoreRepeats', o.scoreRepeats ?? false);
    const order = v.integer('order', o.order ?? 2, 1, 4);
    const branching = v.integer('branching', o.branching ?? 3, 1, 16);
    const tableSeed = v.integer('tableSeed', o.tableSeed ?? 1, 0, Number.MAX_SAFE_INTEGER);
    return { kind, args: [symbols, variableLength, depth, packed, scoreRepeats, order, branching, tableSeed] };
  }

  /** {vocabSize, minLength, firstSymbol} of a task configuration. */
  function taskInfo(opts) {
    const o = v.options('taskInfo options', opts);
    v.knownKeys('taskInfo options', o, [...TASK_KEYS, 'seed']);
    const { kind, args } = taskArgs(o);
    return scope(mod, (m) => {
      const out = m.put('i32', 3);
      check(mod, mod.taskInfo(kind, ...args, out));
      const [vocabSize, minLength, firstSymbol] = m.take('i32', out, 3);
      return { vocabSize, minLength, firstSymbol };
    });
  }

  /**
   * A seeded generator: createTask({task, symbols, variableLength, depth, packed, scoreRepeats,
   * order, branching, tableSeed, seed}). Same options and seed: the same batches as natively.
   */
  function createTask(opts) {
    const o = v.options('createTask options', opts);
    v.knownKeys('createTask options', o, [...TASK_KEYS, 'seed']);
    const { kind, args } = taskArgs(o);
    const seed = v.integer('seed', o.seed ?? 1, 0, Number.MAX_SAFE_INTEGER);
    const info = taskInfo(o);
    let handle = scope(mod, (m) => {
      const out = m.put('i32', 1);
      check(mod, mod.taskCreate(kind, ...args, seed, out));
      return mod.HEAPU32[out / 4];
    });
    const task = {
      ...info,
      task: TASKS[kind],
      /**
       * The ideal predictor on a batch ({tokens, targets, batch, length}, as sample() returns):
       * {loss, accuracy, scored}, the mean over scored targets (-1 = skipped) of the true next-token
       * distribution's entropy (nats) and of its largest probability. For markov every scored position t
       * needs the `order` tokens ending at t to be task symbols (as every sampled batch has).
       */
      oracle(opts) {
        if (!handle) throw new TypeError('this task has been deleted');
        const o = v.options('oracle options', opts);
        v.knownKeys('oracle options', o, ['tokens', 'targets', 'batch', 'length']);
        const batch = v.integer('batch', o.batch ?? 1, 1, 4096);
        const length = v.integer('length', o.length, info.minLength, 16384);
        const n = v.elementBudget('oracle(batch*length)', batch * length);
        const tokens = v.intArray('tokens', o.tokens, n, 0, info.vocabSize - 1);
        const targets = v.intArray('targets', o.targets, n, -1, info.vocabSize - 1);
        if (kind === MARKOV) markovContexts(tokens, targets, length, args, info.firstSymbol);
        return scope(mod, (m) => {
          const pt = m.put('i32', n, tokens), pg = m.put('i32', n, targets), out = m.put('f64', 3);
          check(mod, mod.taskOracle(handle, pt, pg, batch, length, out));
          const [loss, accuracy, scored] = m.take('f64', out, 3);
          return { loss, accuracy, scored };
        });
      },
      /** A fresh batch: tokens and targets, Int32Array(batch*length) each (-1 = not scored). */
      sample(opts) {
        if (!handle) throw new TypeError('this task has been deleted');
        const o = v.options('sample options', opts);
        v.knownKeys('sample options', o, ['batch', 'length']);
        const batch = v.integer('batch', o.batch ?? 1, 1, 4096);
        const length = v.integer('length', o.length, info.minLength, 16384);
        const n = v.elementBudget('sample(batch*length)', batch * length);
        return scope(mod, (m) => {
          const pt = m.put('i32', n), pg = m.put('i32', n);
          check(mod, mod.taskSample(handle, batch, length, pt, pg));
          return { tokens: m.take('i32', pt, n), targets: m.take('i32', pg, n) };
        });
      },
      delete() {
        if (!handle) return;
        registry.unregister(task);
        mod.taskDelete(handle);
        handle = 0;
      },
    };
    registry.register(task, handle, task);
    return task;
  }

  return { createTask, taskInfo };
}
