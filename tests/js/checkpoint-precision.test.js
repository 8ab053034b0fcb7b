// Shipped checkpoints store float16 weights (format version 3). For every one, against the float32
// checkpoint it was converted from (git, FLOAT32_COMMIT: the last commit that shipped float32 files):
//  - the shipped bytes are exactly what scripts/convert-checkpoints.js (and so posenc_train) makes of it;
//  - no verdict moves: accuracy at every evaluation length of the experiment (docs/results.json
//    evalLengths, 32 full-length sequences) within 0.5 percentage points, and the attention maps of every
//    layer and head at every length of the page's sweep (the timeline's 32 lengths up to 16x the training
//    length) within ATTENTION_MAX_ABS of float32's.
// A checkpoint retrained since then has no float32 original here: this test then fails and says so (see
// the message), so a new set of checkpoints is measured before it ships.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadPosenc } from '../../web/lib/index.js';
import { evalTask } from '../../web/app/experiment.js';
import { createTimeline } from '../../web/app/timeline.js';
import { toFloat16 } from '../../scripts/convert-checkpoints.js';

const FLOAT32_COMMIT = '751c2a584cbd6ea63ce5e46f41a24905faa445d0';
const ACCURACY_PP = 0.5;
const ATTENTION_MAX_ABS = 0.03; // measured: at most 0.0144 (reverse-shaw), most under 0.003
const root = new URL('../../', import.meta.url).pathname;
const dir = new URL('../../web/checkpoints/', import.meta.url);
const results = JSON.parse(readFileSync(new URL('../../docs/results.json', import.meta.url), 'utf8'));
const files = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8')).filter((f) => f.endsWith('.ckpt'));

function float32Original(file) {
  try {
    return new Uint8Array(execFileSync('git', ['-C', root, 'show', `${FLOAT32_COMMIT}:web/checkpoints/${file}`],
      { maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] }));
  } catch (e) {
    throw new Error(`the float32 original of ${file} is not in git at ${FLOAT32_COMMIT} (${String(e.stderr ?? e.message).trim()}): ` +
      'a checkpoint trained since needs its float32 version measured against it (posenc_train writes float16; train with ' +
      'a build whose save_checkpoint keeps float32, or point FLOAT32_COMMIT at a commit that has the float32 files)');
  }
}

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const bytesEqual = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

test.each(files)('%s: float16 changes no verdict of the sweep', (file) => {
  const shipped = new Uint8Array(readFileSync(new URL(file, dir)));
  expect(pe.readCheckpoint(shipped)).toMatchObject({ version: 3, weights: 'float16' });
  const original = float32Original(file);
  expect(pe.readCheckpoint(original).weights).toBe('float32');
  if (!bytesEqual(toFloat16(pe, original), shipped))
    throw new Error(`${file} is not the float16 conversion of its float32 original at ${FLOAT32_COMMIT} (retrained?)`);

  const task = file.split('-')[0];
  const wide = pe.loadModel(original, { learnedPolicy: 'clamp' });
  const half = pe.loadModel(shipped, { learnedPolicy: 'clamp' });
  try {
    const sample = (length, batch) => {
      const data = pe.createTask({ ...evalTask(task), seed: 4242 + length });
      try {
        return data.sample({ batch, length });
      } finally {
        data.delete();
      }
    };
    for (const length of results.config.evalLengths) {
      const { tokens, targets } = sample(length, 32);
      const a = wide.evaluate(tokens, targets, { batch: 32, length });
      const b = half.evaluate(tokens, targets, { batch: 32, length });
      if (Math.abs(a.accuracy - b.accuracy) * 100 > ACCURACY_PP)
        throw new Error(`${file} at T=${length}: accuracy ${a.accuracy} (float32) vs ${b.accuracy} (float16)`);
    }
    const trainLength = wide.trainedLength;
    const grid = createTimeline({ trainLength, sweepFactor: 16, length: trainLength }).grid();
    let worst = 0;
    for (const length of grid) {
      const { tokens, targets } = sample(length, 1);
      const a = wide.evaluate(tokens, targets, { batch: 1, length, attention: true }).attention;
      const b = half.evaluate(tokens, targets, { batch: 1, length, attention: true }).attention;
      expect(b.length).toBe(a.length);
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
    }
    expect(worst).toBeLessThanOrEqual(ATTENTION_MAX_ABS);
  } finally {
    wide.delete();
    half.delete();
  }
});
