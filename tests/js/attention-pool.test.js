// forward/evaluate({attention: true, attentionPool: px}): the maps pooled in the module to
// [px, px] pictures (each pixel its cell's largest weight below the diagonal, -1 where the cell
// has none) and each map's peak (the mean over query rows of the row's largest weight), checked
// against the exact maps of the same call pooled here by the definition; bad values are refused
// naming the option and its range, and nothing leaks.
import { loadPosenc, ENCODINGS } from '../../web/lib/index.js';
import { poolByDefinition } from './reference.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const L = 2, H = 2, T = 23, B = 2;
const tokensOf = (seed) => Int32Array.from({ length: B * T }, (_, i) => (i * 7 + seed * 3 + ((i * i) % 5)) % 11);
const targetsOf = (tokens) => Int32Array.from(tokens, (t, i) => (i % T < T / 2 ? -1 : (t + 1) % 11));

test.each(ENCODINGS)('%s: the pooled pictures and peaks are those of the exact maps', (encoding) => {
  const m = pe.createModel({ encoding, layers: L, heads: H, dModel: 16, vocabSize: 11, maxLength: 12, seed: 8, learnedPolicy: 'clamp' });
  const tokens = tokensOf(1), targets = targetsOf(tokens), opts = { batch: B, length: T, attention: true };
  for (const attentionLayer of [null, 1]) {
    const exact = m.evaluate(tokens, targets, { ...opts, attentionLayer });
    for (const px of [1, 7, 10, T]) {
      const e = m.evaluate(tokens, targets, { ...opts, attentionLayer, attentionPool: px });
      const ref = poolByDefinition(exact.attention, T, px);
      expect(e.attention).toBeNull();
      expect(exact.attentionPool).toBeNull();
      expect(e.attentionPool.px).toBe(px);
      expect(Array.from(e.attentionPool.maps)).toEqual(Array.from(ref.pixels));
      expect(Array.from(e.attentionPool.peaks)).toEqual(Array.from(ref.peaks));
      expect(e.loss).toBe(exact.loss);
      const f = m.forward(tokens, { ...opts, attentionLayer, attentionPool: px });
      expect(Array.from(f.attentionPool.maps)).toEqual(Array.from(ref.pixels));
    }
  }
  // px = T is the map itself below the diagonal, -1 above it
  const full = m.forward(tokens, { ...opts, attentionLayer: 0, attentionPool: T }).attentionPool.maps;
  const exact = m.forward(tokens, { ...opts, attentionLayer: 0 }).attention;
  for (let i = 0; i < T; i++) expect(full[i * T + i]).toBe(exact[i * T + i]);
  expect(full[1]).toBe(-1);
  m.delete();
});

test('attentionPool is validated, naming it and its range, and nothing leaks', () => {
  const m = pe.createModel({ encoding: 'alibi', layers: L, heads: H, dModel: 16, vocabSize: 11, seed: 6 });
  const tokens = tokensOf(2), targets = targetsOf(tokens), opts = { batch: B, length: T, attention: true };
  m.evaluate(tokens, targets, { ...opts, attentionPool: 5 });
  const heap = pe.heapBytes();
  for (const bad of [0, -1, T + 1, 1.5, NaN, Infinity])
    expect(() => m.evaluate(tokens, targets, { ...opts, attentionPool: bad })).toThrow(RangeError);
  expect(() => m.evaluate(tokens, targets, { ...opts, attentionPool: T + 1 })).toThrow(`attentionPool must be an integer in [1, ${T}] (got ${T + 1})`);
  for (const bad of ['4', true, {}, [4]]) expect(() => m.forward(tokens, { ...opts, attentionPool: bad })).toThrow(TypeError);
  expect(() => m.forward(tokens, { batch: B, length: T, attentionPool: 4 })).toThrow(new RangeError('attentionPool needs attention: true'));
  expect(() => m.forward(tokens, { ...opts, attentionPool: 4, attentionOut: new Float32Array(L * H * T * T) }))
    .toThrow(new RangeError('attentionPool and attentionOut exclude each other'));
  expect(pe.heapBytes()).toBe(heap);
  for (let i = 0; i < 50; i++) m.evaluate(tokens, targets, { ...opts, attentionPool: 1 + (i % T) });
  expect(pe.heapBytes()).toBe(heap);
  m.delete();
});
