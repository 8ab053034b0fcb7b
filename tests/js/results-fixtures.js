import { readRules } from '../../scripts/results-load.js';
// Small results.json fixtures for the reporting tests (tests/js/results-words.test.js, tests/browser/
// results-figures.test.js): a v1 shape (no tasks, no learned flags) and a v2 shape as cpp/tools/train_main.cpp
// writes it (tasks with floors, learned flags, kth_retrieval, variants, fine-tuned PI, the registry's encodings).
// the frozen literature rules (docs/rules/*.json), as scripts/results-load.js attaches them
export const RULES_FROZEN = readRules();
const T = 32, LENGTHS = [32, 64, 128, 256];
const DEPTHS = [0, 0.5, 1];
export function run(task, encoding, seed, acc, { loss, oracleLoss, grid, ...extra } = {}) {
  return {
    task, encoding, seed, scaling: 'none', ...extra,
    lengths: LENGTHS.map((L, i) => ({ length: L, accuracy: acc[i], loss: loss ? loss[i] : 1 - acc[i],
      oracleAccuracy: oracleLoss ? 0.5 : 1, oracleLoss: oracleLoss ?? 0 })),
    ...(grid ? { grid: { depths: DEPTHS, lengths: LENGTHS, accuracy: grid } } : {}),
  };
}
export const flatGrid = (a) => DEPTHS.map(() => LENGTHS.map(() => a));

/** v1 shape: no tasks, no learned flags. copy (alibi, rope, none), markov (alibi, sinusoidal), retrieval grids. */
export function v1Fixture() {
  const runs = [];
  for (const seed of [0, 1, 2]) {
    runs.push(run('copy', 'alibi', seed, [1, 0.9, 0.7, 0.4]));
    runs.push(run('copy', 'rope', seed, [1, 0.2, 0.13, 0.12]));
    runs.push(run('copy', 'none', seed, seed === 2 ? [0.95, 0.5, 0.3, 0.2] : [0.5, 0.3, 0.2, 0.15])); // learns on seed 2 only
    runs.push(run('markov', 'alibi', seed, [0.49, 0.49, 0.49, 0.49], { loss: [1, 1, 1.01, 1.02], oracleLoss: 0.99 }));
    runs.push(run('markov', 'sinusoidal', seed, [0.49, 0.4, 0.3, 0.2], { loss: [1, 1.8, 2.6, 3], oracleLoss: 0.99 }));
    runs.push(run('retrieval', 'none', seed, [1, 1, 1, 1], { grid: flatGrid(1) }));
    runs.push(run('retrieval', 'rope', seed, [1, 1, 0.8, 0.4], { grid: [[1, 1, 0.4, 0.2], [1, 1, 0.6, 0.5], [1, 1, 0.9, 0.8]] }));
  }
  return {
    version: 1, rules: RULES_FROZEN,
    config: { trainLength: T, evalLengths: LENGTHS, seeds: [0, 1, 2], model: { layers: 2, heads: 4, dModel: 32 }, steps: 100, batch: 8, lr: 0.01,
      seconds: 60, tasks: ['copy', 'retrieval', 'markov'], encodings: ['none', 'alibi', 'rope', 'sinusoidal'],
      taskOptions: { copy: { symbols: 8 }, retrieval: { symbols: 16 }, markov: { symbols: 8 } } },
    runs,
  };
}

/** v2 shape (CONTRACT.md): tasks with floors, learned flags, kth_retrieval, variants, fine-tuned PI, the registry's encodings. */
export function v2Fixture(encodings) {
  const r = v1Fixture();
  r.version = 2;
  r.config.tasks = ['copy', 'reverse', 'kth_retrieval', 'retrieval', 'markov'];
  r.config.encodings = encodings;
  r.config.variants = [{ encoding: 'rope', variant: 'base100', note: 'base 100: pairs turn within T' }, { encoding: 'rope', variant: 'finetuned', scaling: 'linear', note: 'PI fine-tuned' }];
  const acc = { accuracy: 0.125, loss: Math.log(8) };
  r.tasks = {
    copy: { role: 'main', needsPosition: true, what: 'Copy shows X.', cannot: 'Copy cannot show Y.', metric: 'accuracy', chance: acc, floors: [], oracle: { accuracy: 1, loss: 0 }, target: 0.9 },
    reverse: { role: 'main', needsPosition: true, what: 'w', cannot: 'c', metric: 'accuracy', chance: acc, floors: [], oracle: { accuracy: 1, loss: 0 }, target: 0.9 },
    kth_retrieval: { role: 'main', needsPosition: true, what: 'the k-th occurrence needs position', cannot: 'recall from long documents', metric: 'accuracy',
      chance: acc, floors: [{ name: 'content', accuracy: 0.5, loss: Math.log(2) }], oracle: { accuracy: 1, loss: 0 }, target: 0.9 },
    retrieval: { role: 'control', needsPosition: false, what: 'Content-only.', cannot: 'No position effects.', metric: 'accuracy', chance: acc,
      floors: [{ name: 'uniform', ...acc }, { name: 'content', accuracy: 1, loss: 0, note: 'the query key occurs once' }], oracle: { accuracy: 1, loss: 0 }, target: 0.9 },
    markov: { role: 'main', needsPosition: true, what: 'm', cannot: 'c', metric: 'loss', chance: { accuracy: 0.125, loss: 2.08 },
      floors: [{ name: 'unigram', accuracy: 0.2, loss: 1.95, note: 'no context' }, { name: 'bigram', accuracy: 0.31, loss: 1.75, note: 'current token only' }],
      oracle: { accuracy: 0.49, loss: 0.99 }, target: { loss: 1.1 } },
  };
  const runs = r.runs.map((x) => ({ ...x, variant: '', finetune: null, learned: x.lengths[0].accuracy >= 0.9 || x.task === 'markov', stepsToTarget: 50 }));
  for (const seed of [0, 1, 2]) {
    for (const enc of encodings.filter((e) => !['alibi', 'rope', 'none', 'sinusoidal'].includes(e))) {
      const good = enc.endsWith('_random');
      for (const task of ['copy', 'reverse']) runs.push({ ...run(task, enc, seed, good ? [1, 0.95, 0.9, 0.8] : [1, 0.3, 0.2, 0.15]), variant: '', finetune: null, learned: true });
      runs.push({ ...run('markov', enc, seed, [0.49, 0.45, 0.4, 0.35], { loss: [1, 1.2, 1.4, 1.6], oracleLoss: 0.99 }), variant: '', finetune: null, learned: true });
    }
    for (const enc of ['rope', 'alibi']) runs.push({ ...run('reverse', enc, seed, [1, 0.3, 0.2, 0.15]), variant: '', finetune: null, learned: true });
    runs.push({ ...run('kth_retrieval', 'rope', seed, [1, 0.8, 0.5, 0.3], { grid: [[1, 0.6, 0.3, 0.2], [1, 0.8, 0.5, 0.3], [1, 1, 0.9, 0.85]] }), variant: '', finetune: null, learned: true });
    runs.push({ ...run('kth_retrieval', 'alibi', seed, [1, 0.9, 0.8, 0.7], { grid: [[1, 0.9, 0.7, 0.5], [1, 0.9, 0.8, 0.7], [1, 1, 1, 0.95]] }), variant: '', finetune: null, learned: true });
    runs.push({ ...run('copy', 'rope', seed, [1, 0.6, 0.4, 0.3]), variant: 'base100', finetune: null, learned: true });
    const t5 = { ...run('copy', 't5', seed, [1, 0.3, 0.2, 0.15]), variant: '', finetune: null, learned: true };
    t5.lengths[3].untrainedParameters = { kind: 't5Buckets', count: 2, ids: [30, 31] };
    runs.push(t5);
    runs.push({ ...run('copy', 'rope', seed, [1, 0.3, 0.2, 0.15]), scaling: 'linear', variant: '', finetune: null, learned: true });
    runs.push({ ...run('copy', 'rope', seed, [1, 0.95, 0.5, 0.3]), scaling: 'linear', variant: 'finetuned', finetune: { length: 64, steps: 50 }, learned: true });
  }
  r.runs = runs;
  return r;
}

