// Bad input gives a TypeError or RangeError that names the argument, never
// an abort, a bare number or a silent NaN; and the module keeps working
// without leaking after many errors.
import { loadPosenc } from '../../web/lib/index.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const cases = [
  // [description, call, error class, text the message must contain]
  ['odd dim for RoPE', () => pe.applyRope(new Float32Array(7), { length: 1, dim: 7 }), RangeError, 'dim'],
  ['negative length', () => pe.sinusoidal({ length: -1, dim: 8 }), RangeError, 'length'],
  ['non-integer length', () => pe.sinusoidal({ length: 2.5, dim: 8 }), RangeError, 'length'],
  ['string length', () => pe.sinusoidal({ length: '4', dim: 8 }), TypeError, 'length'],
  ['NaN base', () => pe.sinusoidal({ length: 4, dim: 8, base: NaN }), RangeError, 'base'],
  ['unknown layout', () => pe.sinusoidal({ length: 4, dim: 8, layout: 'diagonal' }), RangeError, 'layout'],
  ['unknown option', () => pe.sinusoidal({ length: 4, dim: 8, lenght: 3 }), RangeError, 'lenght'],
  ['unknown rope_type', () => pe.ropeFrequencies({ dim: 8, scaling: { rope_type: 'ntk' } }), RangeError, 'rope_type'],
  ['NaN factor', () => pe.ropeFrequencies({ dim: 8, scaling: { rope_type: 'linear', factor: NaN } }), RangeError, 'factor'],
  ['llama3 without low_freq_factor', () => pe.ropeFrequencies({ dim: 8, scaling: { rope_type: 'llama3', factor: 8, high_freq_factor: 4, original_max_position_embeddings: 64 } }), RangeError, 'low_freq_factor'],
  ['longrope factors of the wrong length', () => pe.ropeFrequencies({ dim: 8, scaling: { rope_type: 'longrope', long_factor: [1, 2], short_factor: [1, 1, 1, 1], original_max_position_embeddings: 64, max_position_embeddings: 256 } }), RangeError, 'long_factor'],
  ['wrong array length', () => pe.applyRope(new Float32Array(10), { length: 2, dim: 8 }), RangeError, 'x must have length 16'],
  ['NaN in the input', () => pe.applyRope(new Float32Array([NaN, 0]), { length: 1, dim: 2 }), RangeError, 'x[0]'],
  ['rotaryDim > dim', () => pe.applyRope(new Float32Array(8), { length: 1, dim: 8, rotaryDim: 10 }), RangeError, 'rotaryDim'],
  ['negative position', () => pe.applyRope(new Float32Array(8), { length: 1, dim: 8, positions: [-3] }), RangeError, 'positions[0]'],
  ['x not an array', () => pe.applyRope('abc', { length: 1, dim: 2 }), TypeError, 'x'],
  ['position past a learned table', () => pe.learnedLookup(new Float32Array(8), { rows: 4, dim: 2, positions: [1, 4] }), RangeError, 'past the learned table'],
  ['zero heads', () => pe.alibiSlopes(0), RangeError, 'heads'],
  ['heads as a string', () => pe.alibiSlopes('8'), TypeError, 'heads'],
  ['Tq > Tk', () => pe.alibiBias({ heads: 2, queryLength: 5, keyLength: 3 }), RangeError, 'queryLength'],
  ['too many T5 buckets for maxDistance', () => pe.t5Bucket([1], { numBuckets: 32, maxDistance: 4 }), RangeError, 'maxDistance'],
  ['shaw k = 0', () => pe.shawIndex({ queryLength: 3, maxDistance: 0 }), RangeError, 'maxDistance'],
  ['a huge allocation is refused up front', () => pe.alibiBias({ heads: 64, queryLength: 1_000_000, keyLength: 1_000_000 }), RangeError, 'limit'],
  ['options not an object', () => pe.sinusoidal(5), TypeError, 'options'],
];

test.each(cases)('%s', (_, call, cls, text) => {
  let err;
  try {
    call();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(cls);
  expect(err.message).toContain(text);
});

test('10,000 errors later the module gives correct results and its heap has not grown', () => {
  const reference = pe.applyRope(new Float32Array([1, 0, 0, 1]), { length: 2, dim: 2 });
  // Warm up allocator pools, then measure.
  for (const [, call] of cases) try { call(); } catch {}
  const heap0 = pe.heapBytes(), mem0 = pe.memoryBytes();
  let thrown = 0;
  for (let i = 0; i < 10_000; i++) {
    try {
      cases[i % cases.length][1]();
    } catch (e) {
      if (e instanceof TypeError || e instanceof RangeError) thrown++;
    }
  }
  expect(thrown).toBe(10_000);
  expect(pe.heapBytes()).toBe(heap0);
  expect(pe.memoryBytes()).toBe(mem0);
  const again = pe.applyRope(new Float32Array([1, 0, 0, 1]), { length: 2, dim: 2 });
  expect(Array.from(again)).toEqual(Array.from(reference));
  // position 1 rotates (0, 1) by 1 radian
  expect(again[2]).toBeCloseTo(-Math.sin(1), 6);
  expect(again[3]).toBeCloseTo(Math.cos(1), 6);
});
