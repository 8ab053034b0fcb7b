// Every checkpoint that ships in web/checkpoints loads through the JS API,
// matches its file name and config, and re-measures the number that
// docs/results.json records for it (1x accuracy, seed 0) on fresh data; its
// training curve (curves.json) agrees with the run results.json records.
import { readFileSync } from 'node:fs';
import { loadPosenc } from '../../web/lib/index.js';
import { indexes } from '../../scripts/checkpoint-index.js';
import shippedUrls from '../../web/checkpoints/index.js';
import { shippedCurve } from '../../web/app/lab/shipped-curves.js';

const dir = new URL('../../web/checkpoints/', import.meta.url);
const index = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8'));
const results = JSON.parse(readFileSync(new URL('../../docs/results.json', import.meta.url), 'utf8'));
const files = index.filter((f) => f.endsWith('.ckpt'));
let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

test('every task x encoding of the results ships a checkpoint, small enough for the package', () => {
  const { tasks, encodings } = results.config;
  expect(files.sort()).toEqual(tasks.flatMap((t) => encodings.map((e) => `${t}-${e}.ckpt`)).sort());
  const total = files.reduce((a, f) => a + readFileSync(new URL(f, dir)).length, 0);
  // 5 tasks x 12 encodings = 60 checkpoints of 36-113 KB (3 layers, int8 + float16; learned_random's 1024-row
  // table and kth_retrieval's 99-token vocabulary are the large ones): 2.6 MiB.
  expect(total).toBeLessThan(3 * 1024 * 1024);
});

test('index.json and index.js list exactly the files in web/checkpoints (as scripts/checkpoint-index.js writes them)', () => {
  for (const [name, text] of Object.entries(indexes())) expect([name, readFileSync(new URL(name, dir), 'utf8')]).toEqual([name, text]);
  // index.js: one literal URL per checkpoint, each resolving to that file next to it.
  expect(Object.keys(shippedUrls).sort()).toEqual(files.sort());
  for (const [file, url] of Object.entries(shippedUrls)) expect(url.href).toBe(new URL(file, dir).href);
});

test.each(files)('%s loads and reproduces its recorded 1x accuracy', (file) => {
  const [task, encoding] = file.replace('.ckpt', '').split('-');
  const run = results.runs.find((r) => r.task === task && r.encoding === encoding && r.seed === 0 && r.scaling === 'none');
  expect(run.checkpoint).toBe(`web/checkpoints/${file}`);
  const model = pe.loadModel(readFileSync(new URL(file, dir)));
  try {
    expect(model.config.encoding).toBe(encoding);
    const T = results.config.trainLength;
    expect(model.trainedLength).toBe(T);
    const { vocabSize, ...taskOptions } = results.config.taskOptions[task];
    expect(model.config.vocabSize).toBe(vocabSize);
    // The sweep evaluates full-length sequences (variableLength off), as here.
    const data = pe.createTask({ task, ...taskOptions, variableLength: false, seed: 777 });
    const { tokens, targets } = data.sample({ batch: 128, length: T });
    data.delete();
    const { accuracy } = model.evaluate(tokens, targets, { batch: 128, length: T });
    const { accuracy: recorded, scored } = run.lengths.find((l) => l.length === T);
    // Two samples of one accuracy: allow 0.05, or 3.5 standard errors of their difference where
    // few positions are scored (the retrievals score one per sequence: 128 here, 256 recorded).
    const here = targets.filter((t) => t >= 0).length;
    const p = (accuracy + recorded) / 2;
    const se = Math.sqrt(p * (1 - p) * (1 / here + 1 / scored));
    expect(Math.abs(accuracy - recorded)).toBeLessThan(Math.max(0.05, 3.5 * se));
  } finally {
    model.delete();
  }
});

// The training curves of the shipped checkpoints (curves.json, written by posenc_train beside them): one per
// checkpoint, recorded by the run that wrote it, so they agree with what results.json records of that run.
test('curves.json holds the training curve of exactly the checkpoints the index lists, agreeing with their runs', () => {
  const { curves } = JSON.parse(readFileSync(new URL('curves.json', dir), 'utf8'));
  expect(index).toContain('curves.json');
  expect(Object.keys(curves).sort()).toEqual([...files].sort());
  const every = Math.ceil(results.config.steps / 200); // at most 200 points over the budget
  for (const file of files) {
    const [task, encoding] = file.replace('.ckpt', '').split('-');
    const run = results.runs.find((r) => r.task === task && r.encoding === encoding && r.seed === 0 && r.scaling === 'none' && !r.variant);
    const c = curves[file];
    const at = `${file}: `;
    expect([at, c.steps, c.stepsToTarget, c.every, c.checkEvery]).toEqual([at, run.steps, run.stepsToTarget, every, results.config.checkEvery]);
    expect([at, c.loss.length, c.heldOut.length]).toEqual([at, Math.ceil(run.steps / every), Math.floor(run.steps / c.checkEvery)]);
    for (const v of [...c.loss, ...c.heldOut]) expect(Number.isFinite(v) && v >= 0).toBe(true);
    // training lowered the loss (first window against the last) on every shipped model
    expect(c.loss.at(-1)).toBeLessThan(c.loss[0]);
    // the held-out check is the early stop's: its last value meets the stop rule exactly when the run stopped early
    const { target } = results.tasks[task];
    expect(c.heldOutMetric).toBe(task === 'markov' ? 'loss' : 'accuracy');
    if (c.heldOutMetric === 'accuracy') {
      // (the file's 3 significant digits: half a unit of the third, 5e-4, either way)
      const need = Math.min(1, target + results.config.earlyStop.margin), half = 5e-4;
      const before = c.stepsToTarget === null ? c.heldOut : c.heldOut.slice(0, -1);
      for (const v of before) expect([at, v <= need + half]).toEqual([at, true]);
      if (c.stepsToTarget !== null) expect([at, c.heldOut.at(-1) >= need - half]).toEqual([at, true]);
    }
  }
});

test('shippedCurve gives the panel each point at its step, the last at the run\'s last step', () => {
  const curves = JSON.parse(readFileSync(new URL('curves.json', dir), 'utf8'));
  const c = shippedCurve(curves, 'copy', 'rope');
  const e = curves.curves['copy-rope.ckpt'];
  expect(c.points.map(([, l]) => l)).toEqual(e.loss);
  expect(c.points[0][0]).toBe(e.every);
  expect(c.points.at(-1)[0]).toBe(e.steps);
  expect(c.heldOut.at(-1)).toEqual([e.heldOut.length * e.checkEvery, e.heldOut.at(-1)]);
  expect(shippedCurve(curves, 'copy', 'no-such-encoding')).toBeNull();
  expect(shippedCurve(null, 'copy', 'rope')).toBeNull();
});
