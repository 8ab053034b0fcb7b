// node examples/quickstart.js  (after `npm start` or `npm test` has built the module)
import { loadPosenc } from '../web/lib/index.js';

const pe = await loadPosenc();
console.log(`build: ${pe.build} (${pe.simdArch})`);

const table = pe.sinusoidal({ length: 4, dim: 8 });
console.log('sinusoid row 1:', Array.from(table.subarray(8, 16), (v) => v.toFixed(4)).join(' '));

const llama31 = { rope_type: 'llama3', factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192 };
const { invFreq, attentionScale } = pe.ropeFrequencies({ dim: 128, base: 500000, scaling: llama31 });
console.log(`llama3 invFreq[0]=${invFreq[0]} invFreq[63]=${invFreq[63].toExponential(4)} attentionScale=${attentionScale}`);

const q = pe.applyRope(new Float32Array(2 * 8).fill(1), { length: 2, dim: 8, layout: 'half', positions: [0, 1000000] });
console.log('rotated at position 1e6:', Array.from(q.subarray(8), (v) => v.toFixed(4)).join(' '));

console.log('ALiBi slopes, 8 heads:', Array.from(pe.alibiSlopes(8)).join(', '));
console.log('T5 buckets of [-3, 0, 3, 200]:', Array.from(pe.t5Bucket([-3, 0, 3, 200])).join(', '));

try {
  pe.applyRope(new Float32Array(7), { length: 1, dim: 7 });
} catch (e) {
  console.log(`bad input -> ${e.name}: ${e.message}`);
}
