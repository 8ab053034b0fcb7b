// A forward in chunks through the JS API (lm.stream), in Node on the wasm build: on stories260K over the story at
// 4x its context, the steps' NLL joined equals the whole forward's (none, dynamic NTK, YaRN; the chosen scaling's
// statistics and maps too), the float16 cache moves the NLL little against the float32 one, memory() gives the
// core's sizes, and a stream deleted half-way (the page's cancel) frees all it held.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPosenc } from '../../web/lib/index.js';
import { readShared, sharedTest } from './lm-fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const STORY = readFileSync(join(root, 'web/app/lm/passage.txt'), 'utf8');
const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const joined = (parts) => Float32Array.from(parts.flatMap((p) => Array.from(p.nll)));

let pe, lm, ids;
beforeAll(async () => {
  pe = await loadPosenc();
});
afterAll(() => lm?.delete());
const load = async () => {
  lm ??= await pe.loadLanguageModel({ model: readShared('stories260K.bin'), tokenizer: readShared('tok512.bin') });
  ids ??= lm.encode(STORY).subarray(0, 2048);
  return lm;
};

sharedTest('stream: the steps\' NLL, statistics and maps are the whole forward\'s (none, dynamic NTK, YaRN at 2,048 tokens)', async () => {
  await load();
  for (const scaling of [null, { rope_type: 'dynamic', factor: 4 }, { rope_type: 'yarn', factor: 4 }]) {
    const chosen = scaling?.rope_type === 'yarn';
    const opts = { scaling, ...(chosen ? { statsLengths: [512, 1024, 2048], mapLayer: 2, mapPx: 32 } : {}) };
    const whole = lm.forward(ids, opts);
    const s = lm.stream(ids, { ...opts, chunk: 256 });
    const parts = [];
    while (s.done < s.length) parts.push(s.step());
    expect(parts.map((p) => p.from)).toEqual([0, 256, 512, 768, 1024, 1280, 1536, 1792]);
    expect(parts.at(-1).nll.length).toBe(255); // the last row predicts nothing
    expect(maxDiff(joined(parts), whole.nll)).toBeLessThan(2e-5);
    if (chosen) {
      const r = s.result();
      expect(maxDiff(r.maps, whole.maps)).toBeLessThan(2e-5);
      expect(maxDiff(r.peaks, whole.peaks)).toBeLessThan(2e-5);
      for (let i = 0; i < 3; i++) expect(maxDiff(r.statsByLength[i].entropy, whole.statsByLength[i].entropy)).toBeLessThan(2e-5);
    }
    s.delete();
  }
}, 120000);

sharedTest('stream: a float16 cache against float32 (the mean over 64 positions moves by under 5e-3 nats); bad steps refused by name', async () => {
  await load();
  const run = (kv) => {
    const s = lm.stream(ids, { scaling: { rope_type: 'yarn', factor: 4 }, kv });
    const parts = [];
    while (s.done < s.length) parts.push(s.step());
    s.delete();
    return joined(parts);
  };
  const a = run('float32'), b = run('float16');
  let worstBucket = 0;
  for (let k = 0; k + 64 <= a.length; k += 64) {
    let d = 0;
    for (let i = k; i < k + 64; i++) d += b[i] - a[i];
    worstBucket = Math.max(worstBucket, Math.abs(d / 64));
  }
  expect(maxDiff(a, b)).toBeGreaterThan(0); // the cache is 16-bit
  expect(worstBucket).toBeLessThan(5e-3);
  const s = lm.stream(ids.subarray(0, 100), { chunk: 40 });
  expect(() => s.step(41)).toThrow(/n must be an integer in \[1, 40\]/);
  expect(() => s.result()).toThrow(/a stream whose rows have all run/);
  expect(() => lm.stream(ids, { kv: 'int8' })).toThrow(/kv must be one of 'auto', 'float32', 'float16'/);
  s.delete();
  expect(() => s.step()).toThrow(/this stream was deleted/);
}, 120000);

sharedTest('memory(): the core\'s sizes and cache rule; a stream deleted half-way frees what it held', async () => {
  await load();
  const c = lm.config;
  const m = lm.memory(2048, { stats: true, mapLayer: 2, mapPx: 32 });
  expect(m.kv).toBe('float32'); // 1,280 bytes a token: far below 64 MB
  expect(m.cache).toBe(2 * c.layers * c.kvHeads * 2048 * c.headDim * 4);
  expect(m.weights).toBe(c.weightBytes);
  expect(m.total).toBe(m.weights + m.cache + m.work);
  expect(lm.memory(2048, { kv: 'float16' }).cache).toBe(m.cache / 2);
  expect(m.available).toBeGreaterThan(m.cache + m.work);
  const before = lm.memory(2048).available;
  const s = lm.stream(ids, { chunk: 256 });
  s.step();
  const during = lm.memory(2048).available;
  expect(before - during).toBeGreaterThanOrEqual(m.cache); // the cache is held for the whole run
  s.delete();
  expect(lm.memory(2048).available).toBe(before);
  expect(() => lm.memory(1)).toThrow(/length must be an integer in \[2, 131072\]/);
}, 60000);
