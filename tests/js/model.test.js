// The tiny transformer through the JS API, in Node: training lowers the loss,
// results are deterministic, checkpoints round-trip, errors are clear.
import { loadPosenc, ENCODINGS } from '../../web/lib/index.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const small = (encoding, extra = {}) => ({ encoding, layers: 2, heads: 2, dModel: 32, vocabSize: 11, maxLength: 16, seed: 7, ...extra });

// Encodings that let a query find its source position learn to copy in 300 steps at this size.
const LEARNS_COPY = new Set(['learned', 't5', 'rope', 'shaw']);

test.each(ENCODINGS)('training on the copy task lowers the loss: %s', async (encoding) => {
  const model = pe.createModel(small(encoding));
  try {
    const losses = [];
    const result = await pe.train(model, { task: 'copy', symbols: 8, steps: 300, batch: 8, length: 16, lr: 1e-2, progressEvery: 1,
      onProgress: (p) => losses.push(p.loss) });
    expect(result.steps).toBe(300);
    const mean = (a) => a.reduce((x, y) => x + y) / a.length;
    const first = mean(losses.slice(0, 5)), last = mean(losses.slice(-10));
    expect(Number.isFinite(last)).toBe(true);
    expect(last).toBeLessThan(first * 0.85);
    if (LEARNS_COPY.has(encoding)) expect(result.accuracy).toBeGreaterThan(0.9);
  } finally {
    model.delete();
  }
});

test('same seed and config give identical weights; another seed does not', async () => {
  const run = async (seed) => {
    const m = pe.createModel(small('rope', { seed }));
    await pe.train(m, { steps: 5, batch: 4, length: 16, seed: 3 });
    const bytes = m.save();
    m.delete();
    return bytes;
  };
  const [a, b, c] = [await run(1), await run(1), await run(2)];
  expect(Buffer.compare(a, b)).toBe(0);
  expect(Buffer.compare(a, c)).not.toBe(0);
});

test('a seed round-trips exactly through create, save and load, up to 2^53 - 1; larger seeds are refused', () => {
  for (const seed of [0, 1, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER]) {
    const m = pe.createModel(small('rope', { seed }));
    const loaded = pe.loadModel(m.save());
    try {
      expect([m.config.seed, loaded.config.seed]).toEqual([seed, seed]);
      expect(pe.readCheckpoint(m.save()).config.seed).toBe(seed);
    } finally {
      m.delete();
      loaded.delete();
    }
  }
  for (const seed of [2 ** 53, 9079256848795697000, -1, 1.5])
    expect(() => pe.createModel(small('rope', { seed }))).toThrow(/seed/);
  expect(() => pe.createModel(small('rope', { seed: 2 ** 53 }))).toThrow(RangeError);
  const after = pe.createModel(small('rope')); // the module still works
  expect(after.config.seed).toBe(7);
  after.delete();
});

test('forward returns logits and attention maps of the right shape, rows summing to 1', () => {
  const m = pe.createModel(small('alibi'));
  const T = 12;
  const tokens = Int32Array.from({ length: T }, (_, i) => 3 + (i % 8));
  const { logits, attention } = m.forward(tokens, { length: T, attention: true });
  expect(logits.length).toBe(T * 11);
  expect(attention.length).toBe(2 * 2 * T * T);
  for (let row = 0; row < 2 * 2 * T; row++) {
    const i = row % T;
    let sum = 0;
    for (let j = 0; j < T; j++) {
      const p = attention[row * T + j];
      if (j > i) expect(p).toBe(0);
      sum += p;
    }
    expect(sum).toBeCloseTo(1, 5);
  }
  expect(m.forward(tokens, { length: T }).attention).toBeNull();
  m.delete();
});

test('checkpoints round-trip, and bad ones give clear errors', () => {
  const m = pe.createModel(small('t5'));
  const bytes = m.save({ weights: 'float32' }); // bit for bit (the default, float16, rounds: below)
  const copy = pe.loadModel(bytes);
  expect(copy.config).toEqual(m.config);
  const tokens = Int32Array.from({ length: 10 }, (_, i) => 3 + (i % 5));
  expect(Array.from(copy.forward(tokens, { length: 10 }).logits)).toEqual(Array.from(m.forward(tokens, { length: 10 }).logits));
  expect(() => pe.loadModel(bytes.slice(0, 50))).toThrow(RangeError);
  const flipped = bytes.slice();
  flipped[200] ^= 0x10;
  expect(() => pe.loadModel(flipped)).toThrow(/checksum/);
  const version = bytes.slice();
  version[4] = 9;
  expect(() => pe.loadModel(version)).toThrow(/version/);
  expect(() => pe.loadModel('nope')).toThrow(TypeError);
  expect(() => m.save({ weights: 'int4' })).toThrow(/weights must be one of 'float32', 'float16', 'int8'/);
  expect(() => m.save({ precision: 'float16' })).toThrow(/precision/);
  m.delete();
  copy.delete();
});

test('save() defaults to float16 (format version 3): half the bytes, re-saved identically, close logits', () => {
  const m = pe.createModel(small('rope'));
  const half = m.save();
  const wide = m.save({ weights: 'float32' });
  expect(pe.readCheckpoint(half)).toMatchObject({ version: 3, weights: 'float16' });
  expect(half.length).toBe(144 + 2 * m.numParameters);
  expect(wide.length).toBe(100 + 4 * m.numParameters);
  const copy = pe.loadModel(half);
  expect(Buffer.compare(copy.save(), half)).toBe(0);
  // converting the float32 checkpoint gives the same bytes as saving in float16
  const fromWide = pe.loadModel(wide);
  expect(Buffer.compare(fromWide.save({ weights: 'float16' }), half)).toBe(0);
  const tokens = Int32Array.from({ length: 12 }, (_, i) => 3 + (i % 5));
  const a = m.forward(tokens, { length: 12 }).logits, b = copy.forward(tokens, { length: 12 }).logits;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  expect(worst).toBeGreaterThan(0); // rounded
  expect(worst).toBeLessThan(1e-2);
  for (const x of [m, copy, fromWide]) x.delete();
});

test('bad model input is a TypeError or RangeError naming the argument', () => {
  expect(() => pe.createModel({ encoding: 'rotary', vocabSize: 10 })).toThrow(/encoding/);
  expect(() => pe.createModel({ encoding: 'rope', vocabSize: 10, heads: 3, dModel: 32 })).toThrow(/heads|dModel/);
  expect(() => pe.createModel({ encoding: 'rope' })).toThrow(/vocabSize/);
  const m = pe.createModel(small('learned'));
  expect(() => m.forward(new Int32Array(20).fill(3), { length: 20 })).toThrow(/maxLength|learned|past/);
  expect(() => m.trainStep(new Int32Array(16).fill(99), new Int32Array(16), { length: 16 })).toThrow(/tokens\[0\]/);
  expect(() => m.forward([3, 4], { length: 2, ropeScaling: { rope_type: 'linear', factor: 2 } })).toThrow(/rope/);
  m.delete();
  expect(() => m.forward([3], { length: 1 })).toThrow(/deleted/);
});

test('learned models report the positions they never trained', async () => {
  const m = pe.createModel(small('learned', { maxLength: 16, learnedPolicy: 'clamp' }));
  await pe.train(m, { steps: 2, batch: 2, length: 8 });
  const status = m.positionStatus(20);
  // Trained at length 8, positions 0..6 had a target; position 7's output is never scored, so its row
  // gets no gradient under next-token training and is reported untrained (1), as are 8..15.
  expect(Array.from(status.subarray(0, 7))).toEqual(new Array(7).fill(0));
  expect(status[7]).toBe(1);
  expect(status[10]).toBe(1);
  expect(status[18]).toBe(2);
  m.delete();
});

test('RoPE scaling at evaluation time changes attention without retraining', () => {
  const m = pe.createModel(small('rope'));
  const tokens = Int32Array.from({ length: 16 }, (_, i) => 3 + (i % 8));
  const plain = m.forward(tokens, { length: 16, attention: true }).attention;
  const same = m.forward(tokens, { length: 16, attention: true, ropeScaling: { rope_type: 'linear', factor: 1 } }).attention;
  const pi = m.forward(tokens, { length: 16, attention: true, ropeScaling: { rope_type: 'linear', factor: 4 } }).attention;
  expect(Array.from(same)).toEqual(Array.from(plain));
  expect(Math.max(...pi.map((x, i) => Math.abs(x - plain[i])))).toBeGreaterThan(1e-4);
  m.delete();
});

test('training can be cancelled between steps', async () => {
  const m = pe.createModel(small('none'));
  const controller = new AbortController();
  const result = await pe.train(m, { steps: 1000, batch: 2, length: 16, progressEvery: 1,
    onProgress: (p) => p.step === 3 && controller.abort(), signal: controller.signal });
  expect(result.stopped).toBe(true);
  expect(result.steps).toBe(3);
  m.delete();
});

// Create / train / delete cycles and long sessions: tests/js/leaks.test.js.
