// Long sessions do not leak: create / train step / delete cycles, a sweep-like
// session of forward passes at changing lengths, and models the caller forgets
// to delete() (freed by the library's FinalizationRegistry, with one warning).
// Heap = the wasm allocator's bytes in use (pe.heapBytes(), mallinfo); memory =
// the size of the wasm memory (pe.memoryBytes()).
import { spawnSync } from 'node:child_process';
import { loadPosenc, ENCODINGS } from '../../web/lib/index.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const tiny = (encoding) => ({ encoding, layers: 1, heads: 2, dModel: 8, mlpRatio: 1, vocabSize: 7, maxLength: 8, seed: 1,
  learnedPolicy: encoding === 'learned' ? 'clamp' : 'error' });
const tokens = Int32Array.from({ length: 8 }, (_, i) => 1 + (i % 6));
const targets = Int32Array.from({ length: 8 }, (_, i) => (i + 1) % 7);

test('10,000 create / train step / delete cycles over every encoding leave the heap exactly flat', () => {
  const cycle = (i) => {
    const m = pe.createModel(tiny(ENCODINGS[i % ENCODINGS.length]));
    const loss = m.trainStep(tokens, targets, { length: 8, lr: 1e-3 });
    m.delete();
    return loss;
  };
  const losses = ENCODINGS.map((_, i) => cycle(i)); // also the one-time allocations (kernel scratch)
  const heap0 = pe.heapBytes(), memory0 = pe.memoryBytes();
  const growth = [];
  for (let i = 0; i < 10_000; i++) {
    cycle(i);
    if (i % 2000 === 1999) growth.push(pe.heapBytes() - heap0);
  }
  console.log(`10,000 cycles: heap growth at every 2,000: ${growth.join(', ')} bytes; memory +${pe.memoryBytes() - memory0} bytes`);
  expect(growth).toEqual([0, 0, 0, 0, 0]);
  expect(pe.memoryBytes()).toBe(memory0);
  // Same seed and data: the first cycles' losses come back exactly.
  expect(ENCODINGS.map((_, i) => cycle(i))).toEqual(losses);
});

test('a long sweep-like session (forward, evaluate, attention maps, scalings, tasks at changing lengths) stays flat', () => {
  const models = ENCODINGS.map((enc) => pe.createModel({ ...tiny(enc), maxLength: 64 }));
  const scalings = [undefined, { rope_type: 'linear', factor: 4 }, { rope_type: 'yarn', factor: 8, original_max_position_embeddings: 16 },
    { rope_type: 'dynamic', factor: 2, max_position_embeddings: 16 }];
  const pass = () => {
    for (let T = 4; T <= 64; T += 4) {
      const task = pe.createTask({ task: 'copy', symbols: 4, seed: T });
      const batch = task.sample({ batch: 2, length: Math.max(T, task.minLength) });
      task.delete();
      const length = batch.tokens.length / 2;
      models.forEach((m, k) => {
        const ropeScaling = m.config.encoding === 'rope' ? scalings[T % scalings.length] : undefined;
        m.forward(batch.tokens, { batch: 2, length, attention: true, ropeScaling });
        m.evaluate(batch.tokens, batch.targets, { batch: 2, length, ropeScaling });
        m.positionStatus(length);
        if (k === T % models.length) pe.loadModel(m.save()).delete();
      });
    }
  };
  pass(); // the models' activation arenas grow to the longest length once
  const heap0 = pe.heapBytes(), memory0 = pe.memoryBytes();
  for (let i = 0; i < 40; i++) pass(); // 40 x 16 lengths x 7 models
  const growth = pe.heapBytes() - heap0;
  console.log(`long session: ${40 * 16 * models.length * 3} model calls, heap growth ${growth} bytes, memory +${pe.memoryBytes() - memory0} bytes`);
  expect(growth).toBe(0);
  expect(pe.memoryBytes()).toBe(memory0);
  models.forEach((m) => m.delete());
});

test('models and tasks nobody deletes are freed by the FinalizationRegistry, with one warning (node --expose-gc)', () => {
  const child = spawnSync(process.execPath, ['--expose-gc', new URL('./children/forgotten.mjs', import.meta.url).pathname, '200'],
    { encoding: 'utf8', timeout: 60_000 });
  expect(child.stderr).toBe('');
  const r = JSON.parse(child.stdout.trim().split('\n').at(-1));
  console.log(`forgotten: 200 models + 200 tasks held ${r.heapForgotten - r.heap0} bytes; after GC (${r.rounds} rounds) ` +
    `the heap is ${r.heapAfter - r.heap0} bytes above the baseline; warnings: ${r.warnings.length}`);
  expect(r.heapForgotten - r.heap0).toBeGreaterThan(200 * 100_000); // they really held memory
  expect(r.heapAfter).toBeLessThanOrEqual(r.heap0); // and all of it came back
  expect(r.rounds).toBeLessThan(200);
  expect(r.warnings).toHaveLength(1); // reported once, not once per model
  expect(r.warnings[0]).toMatch(/garbage-collected without delete\(\).*model\.delete\(\)/);
  expect(Number.isFinite(r.loss)).toBe(true); // the module still trains afterwards
});
