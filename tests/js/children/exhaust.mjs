// Run by tests/js/fuzz.test.js in its own process (it grows wasm memory to the
// 2 GB maximum): requests under every per-call limit that together exhaust the
// heap get a RangeError, never an abort, and the module keeps working.
// Prints one JSON line.
import { loadPosenc } from '../../../web/lib/index.js';

const pe = await loadPosenc();
const models = [];
const errors = [];
// ~32M parameters each (just under the per-model limit): weights, gradients and two Adam moments.
for (let i = 0; i < 6 && errors.length < 2; i++) {
  try {
    models.push(pe.createModel({ vocabSize: 1000, dModel: 512, layers: 10, heads: 8, seed: i }));
  } catch (e) {
    errors.push(`${e.constructor.name}: ${e.message}`);
  }
}
try {
  pe.sinusoidal({ length: 2 ** 20, dim: 64 }); // 256 MB: within the per-call limit, not in what is left
} catch (e) {
  errors.push(`${e.constructor.name}: ${e.message}`);
}
const memoryFull = pe.memoryBytes();
for (const m of models) m.delete();
const table = pe.sinusoidal({ length: 2, dim: 2 }); // [sin 0, cos 0, sin 1, cos 1]
console.log(JSON.stringify({ created: models.length, errors, memoryFull, heapAfter: pe.heapBytes(), table: Array.from(table) }));
