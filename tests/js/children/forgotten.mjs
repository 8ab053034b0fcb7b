// Run by tests/js/leaks.test.js as `node --expose-gc forgotten.mjs`: models and
// tasks the caller never delete()s are freed by the library's
// FinalizationRegistry once they are garbage, and the library warns once.
// Prints one JSON line: heap figures, warnings, and how many GC rounds it took.
import { loadPosenc } from '../../../web/lib/index.js';

const warnings = [];
console.warn = (...args) => warnings.push(args.join(' '));
const pe = await loadPosenc();
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const COUNT = Number(process.argv[2] ?? 200);

async function settle() {
  for (let i = 0; i < 5; i++) {
    globalThis.gc();
    await tick();
  }
}

// Forgotten in this function's scope: nothing refers to them once it returns.
function use(count, remember) {
  for (let i = 0; i < count; i++) {
    const m = pe.createModel({ encoding: 'rope', layers: 1, heads: 2, dModel: 32, vocabSize: 11, maxLength: 16, seed: i });
    m.trainStep(new Int32Array(16).fill(3), new Int32Array(16).fill(4), { length: 16 });
    const task = pe.createTask({ task: 'copy', seed: i });
    task.sample({ length: 16 });
    if (remember) {
      m.delete();
      task.delete();
    }
  }
}
use(1, true); // the module's one-time allocations (kernel scratch) happen here, before the baseline
await settle();
const heap0 = pe.heapBytes();
use(COUNT, false);
const heapForgotten = pe.heapBytes();

let rounds = 0;
while (pe.heapBytes() > heap0 && rounds < 200) {
  globalThis.gc();
  await tick();
  rounds++;
}
// A deleted model must not be freed a second time when it is collected later.
const kept = pe.createModel({ encoding: 'alibi', vocabSize: 11, seed: 1 });
kept.delete();
await settle();

// The module still works after all that.
const again = pe.createModel({ encoding: 'rope', layers: 1, heads: 2, dModel: 32, vocabSize: 11, maxLength: 16, seed: 1 });
const loss = again.trainStep(new Int32Array(16).fill(3), new Int32Array(16).fill(4), { length: 16 });
again.delete();

console.log(JSON.stringify({ count: COUNT, heap0, heapForgotten, heapAfter: pe.heapBytes(), rounds, warnings, loss }));
