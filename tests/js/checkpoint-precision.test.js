// Shipped checkpoints store float16 weights (format version 3). No verdict may move against float32:
//  1. every shipped checkpoint: the accuracy at every evaluation length of the experiment, measured by the
//     same code and data as `npm run train` (posenc::sweep through build/native/posenc_checkpoint_tool),
//     is within ACCURACY_PP of what docs/results.json records for the float32 model it was saved from;
//  2. every shipped checkpoint of copy and reverse that is the float16 conversion of a float32 file in git (FLOAT32_COMMIT, the
//     last commit that shipped float32 checkpoints): the shipped bytes are exactly what
//     scripts/convert-checkpoints.js (and so posenc_train) makes of that file, and the attention maps of
//     every layer and head at every length of the page's sweep (the timeline's 32 lengths up to 16x the
//     training length) are within ATTENTION_MAX_ABS of the float32 model's.
// (After a retrain, part 2 has no float32 originals until some are committed; part 1 still applies.)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadPosenc } from '../../web/lib/index.js';
import { evalTask } from '../../web/app/experiment.js';
import { createTimeline } from '../../web/app/timeline.js';
import { toFloat16 } from '../../scripts/convert-checkpoints.js';

const FLOAT32_COMMIT = '751c2a584cbd6ea63ce5e46f41a24905faa445d0';
const ACCURACY_PP = 0.5; // measured: at most 0.13 points
const ATTENTION_MAX_ABS = 0.03; // measured: at most 0.0144 (reverse-shaw), most under 0.003
const root = new URL('../../', import.meta.url).pathname;
const tool = new URL('../../build/native/posenc_checkpoint_tool', import.meta.url).pathname;
const dir = new URL('../../web/checkpoints/', import.meta.url);
const results = JSON.parse(readFileSync(new URL('../../docs/results.json', import.meta.url), 'utf8'));
const files = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8')).filter((f) => f.endsWith('.ckpt'));
const shipped = (file) => new Uint8Array(readFileSync(new URL(file, dir)));

function float32Original(file) {
  try {
    return new Uint8Array(execFileSync('git', ['-C', root, 'show', `${FLOAT32_COMMIT}:web/checkpoints/${file}`],
      { maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return null;
  }
}

const pe = await loadPosenc();

const bytesEqual = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

test.each(files)('%s: float16, and its accuracy at every length matches the float32 run of docs/results.json', (file) => {
  if (!existsSync(tool)) throw new Error(`${tool} is missing: run npm test (it builds the native tools)`);
  expect(pe.readCheckpoint(shipped(file))).toMatchObject({ version: 3, weights: 'float16' });
  const [task, encoding] = file.replace('.ckpt', '').split('-');
  const run = results.runs.find((r) => r.task === task && r.encoding === encoding && r.seed === 0 && r.scaling === 'none');
  const { config } = results;
  const t = config.taskOptions[task];
  const sequences = task === 'retrieval' ? config.evaluation.retrievalSequences : config.evaluation.sequences;
  const args = ['sweep', new URL(file, dir).pathname, task, t.symbols, t.variableLength ? 1 : 0, t.packed === false ? 0 : 1,
    t.order ?? 2, t.branching ?? 3, t.tableSeed ?? 1, sequences, config.evaluation.seed, config.trainLength, ...config.evalLengths];
  const accuracy = JSON.parse(execFileSync(tool, args.map(String), { encoding: 'utf8' }));
  expect(accuracy).toHaveLength(config.evalLengths.length);
  const diffs = config.evalLengths.map((T, i) => [T, Math.abs(accuracy[i] - run.lengths.find((l) => l.length === T).accuracy) * 100]);
  expect(diffs.filter(([, d]) => d > ACCURACY_PP)).toEqual([]);
});

// Part 2: the shipped files that are the float16 conversion of their float32 original in git.
// (The tasks the page and the sample post open with: copy and reverse. Every file is in part 1.)
const originals = files.filter((f) => /^(copy|reverse)-/.test(f)).map((f) => [f, float32Original(f)])
  .filter(([f, b]) => b && bytesEqual(toFloat16(pe, b), shipped(f)));

const part2 = originals.length ? test.each(originals.map(([f]) => f)) : () => {};
part2('%s: the float16 conversion of its float32 original; attention within the bound at every sweep length', (file) => {
  const original = originals.find(([f]) => f === file)[1];
  expect(pe.readCheckpoint(original).weights).toBe('float32');
  const half = shipped(file);
  const task = file.split('-')[0];
  const wide = pe.loadModel(original, { learnedPolicy: 'clamp' });
  const narrow = pe.loadModel(half, { learnedPolicy: 'clamp' });
  try {
    const trainLength = wide.trainedLength;
    let worst = 0;
    for (const length of createTimeline({ trainLength, sweepFactor: 16, length: trainLength }).grid()) {
      const data = pe.createTask({ ...evalTask(task), seed: 4242 + length });
      const { tokens, targets } = data.sample({ batch: 1, length });
      data.delete();
      const a = wide.evaluate(tokens, targets, { batch: 1, length, attention: true }).attention;
      const b = narrow.evaluate(tokens, targets, { batch: 1, length, attention: true }).attention;
      expect(b.length).toBe(a.length);
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
    }
    expect(worst).toBeGreaterThan(0); // (the weights did change)
    expect(worst).toBeLessThanOrEqual(ATTENTION_MAX_ABS);
  } finally {
    wide.delete();
    narrow.delete();
  }
});
