// Caller-owned output arrays: attention({out}) and forward/evaluate({attentionOut}) write
// into the given Float32Array (no new T×T array per call) and give the same numbers as
// the allocating calls; bad buffers are refused naming the option, without leaking.
import { loadPosenc } from '../../web/lib/index.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const rand = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + seed) * 0.7);

test('attention writes into out and returns it', () => {
  const T = 37, d = 8, q = rand(T * d, 1), k = rand(T * d, 2);
  const fresh = pe.attention(q, k, { queryLength: T, dim: d, alibiSlope: 0.25 });
  const out = new Float32Array(T * T).fill(NaN);
  const r = pe.attention(q, k, { queryLength: T, dim: d, alibiSlope: 0.25, out });
  expect(r).toBe(out);
  expect(Array.from(out)).toEqual(Array.from(fresh));
  // reused: a second call overwrites every value
  pe.attention(k, q, { queryLength: T, dim: d, out });
  expect(Array.from(out)).toEqual(Array.from(pe.attention(k, q, { queryLength: T, dim: d })));
});

test('a wrong out is refused before any work, naming it', () => {
  const q = rand(16, 3), opts = { queryLength: 4, dim: 4 };
  const heap = pe.heapBytes();
  expect(() => pe.attention(q, q, { ...opts, out: new Float64Array(16) })).toThrow(TypeError);
  expect(() => pe.attention(q, q, { ...opts, out: [0, 0] })).toThrow(/out must be a Float32Array of 16 values/);
  expect(() => pe.attention(q, q, { ...opts, out: new Float32Array(15) })).toThrow(RangeError);
  expect(() => pe.attention(q, q, { ...opts, out: new Float32Array(17) })).toThrow(/out must have length 16 \(got 17\)/);
  expect(pe.heapBytes()).toBe(heap);
});

test('forward and evaluate write the maps into attentionOut', () => {
  const m = pe.createModel({ encoding: 't5', layers: 2, heads: 2, dModel: 16, vocabSize: 11, seed: 4 });
  const T = 20, tokens = Int32Array.from({ length: 2 * T }, (_, i) => (i * 7) % 11);
  const targets = Int32Array.from(tokens, (t, i) => (i % 3 ? t : -1));
  const fresh = m.forward(tokens, { batch: 2, length: T, attention: true });
  const maps = new Float32Array(2 * 2 * T * T);
  const r = m.forward(tokens, { batch: 2, length: T, attention: true, attentionOut: maps });
  expect(r.attention).toBe(maps);
  expect(Array.from(maps)).toEqual(Array.from(fresh.attention));
  expect(Array.from(r.logits)).toEqual(Array.from(fresh.logits));
  maps.fill(-1);
  const e = m.evaluate(tokens, targets, { batch: 2, length: T, attention: true, attentionOut: maps });
  expect(e.attention).toBe(maps);
  expect(Array.from(maps)).toEqual(Array.from(m.evaluate(tokens, targets, { batch: 2, length: T, attention: true }).attention));
  expect(() => m.forward(tokens, { batch: 2, length: T, attentionOut: maps })).toThrow(/attentionOut needs attention: true/);
  expect(() => m.forward(tokens, { batch: 2, length: T, attention: true, attentionOut: new Float32Array(5) }))
    .toThrow(/attentionOut must have length 1600 \(got 5\)/);
  expect(() => m.forward(tokens, { batch: 2, length: T, attention: true, attentionOut: new Int32Array(1600) })).toThrow(TypeError);
  m.delete();
});
