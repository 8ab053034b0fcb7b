// forward/evaluate({attention: true, attentionLayer}): only that layer's maps, [heads, length,
// length], bit for bit that layer's slice of the all-layer maps (the other layers run without
// maps); the loss is the one without maps; bad values are refused naming the option and its
// range, before any work, and nothing leaks.
import { loadPosenc, ENCODINGS } from '../../web/lib/index.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const L = 3, H = 2, T = 19, B = 3;
const tokensOf = (seed) => Int32Array.from({ length: B * T }, (_, i) => (i * 7 + seed * 3 + ((i * i) % 5)) % 11);
// the second half of each sequence scored, as in copy (the last layer may skip the first half)
const targetsOf = (tokens) => Int32Array.from(tokens, (t, i) => (i % T < T / 2 ? -1 : (t + 1) % 11));

test.each(ENCODINGS)('%s: one layer\'s maps are the all-layer maps\' slice, exactly', (encoding) => {
  const m = pe.createModel({ encoding, layers: L, heads: H, dModel: 16, vocabSize: 11, maxLength: 12, seed: 5, learnedPolicy: 'clamp' });
  const tokens = tokensOf(1), targets = targetsOf(tokens), opts = { batch: B, length: T };
  const plainLoss = m.evaluate(tokens, targets, opts).loss;
  const fwdAll = m.forward(tokens, { ...opts, attention: true }).attention;
  const evalAll = m.evaluate(tokens, targets, { ...opts, attention: true }).attention;
  const per = H * T * T;
  expect(evalAll.length).toBe(L * per);
  for (let k = 0; k < L; k++) {
    const f = m.forward(tokens, { ...opts, attention: true, attentionLayer: k }).attention;
    expect(f.length).toBe(per);
    expect(Array.from(f)).toEqual(Array.from(fwdAll.subarray(k * per, (k + 1) * per)));
    const out = new Float32Array(per).fill(NaN);
    const e = m.evaluate(tokens, targets, { ...opts, attention: true, attentionLayer: k, attentionOut: out });
    expect(e.attention).toBe(out);
    expect(Array.from(out)).toEqual(Array.from(evalAll.subarray(k * per, (k + 1) * per)));
    expect(e.loss).toBeCloseTo(plainLoss, 5);
  }
  // null means every layer
  expect(m.forward(tokens, { ...opts, attention: true, attentionLayer: null }).attention.length).toBe(L * per);
  m.delete();
});

test('attentionLayer is validated, naming it and its range, and nothing leaks', () => {
  const m = pe.createModel({ encoding: 'rope', layers: L, heads: H, dModel: 16, vocabSize: 11, seed: 6 });
  const tokens = tokensOf(2), targets = targetsOf(tokens), opts = { batch: B, length: T, attention: true };
  // every layer once, so the scratch of this shape exists (the last layer's maps keep every target): the heap must not move below
  for (let k = 0; k < L; k++) m.evaluate(tokens, targets, { ...opts, attentionLayer: k });
  const heap = pe.heapBytes();
  for (const bad of [3, -1, 1.5, 2 ** 31, NaN, Infinity])
    expect(() => m.evaluate(tokens, targets, { ...opts, attentionLayer: bad })).toThrow(RangeError);
  expect(() => m.evaluate(tokens, targets, { ...opts, attentionLayer: 3 })).toThrow(/attentionLayer must be an integer in \[0, 2\] \(got 3\)/);
  for (const bad of ['1', true, {}, [1]])
    expect(() => m.forward(tokens, { ...opts, attentionLayer: bad })).toThrow(TypeError);
  expect(() => m.forward(tokens, { ...opts, attentionLayer: '1' })).toThrow(/attentionLayer must be an integer in \[0, 2\]/);
  expect(() => m.forward(tokens, { batch: B, length: T, attentionLayer: 0 })).toThrow(/attentionLayer needs attention: true/);
  // attentionOut must have one layer's size
  expect(() => m.forward(tokens, { ...opts, attentionLayer: 0, attentionOut: new Float32Array(L * H * T * T) }))
    .toThrow(new RangeError(`attentionOut must have length ${H * T * T} (got ${L * H * T * T})`));
  expect(pe.heapBytes()).toBe(heap);
  // still works, and many calls do not grow the heap
  for (let i = 0; i < 50; i++) m.evaluate(tokens, targets, { ...opts, attentionLayer: i % L });
  expect(pe.heapBytes()).toBe(heap);
  m.delete();
});
