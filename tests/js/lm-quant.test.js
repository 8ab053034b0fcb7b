// Quantised GGUFs in the wasm build (Node): files written by tests/lm/dequant.py (random blocks in ggml's layouts).
//  - small random llama models, every matrix in one format (and a Q4_K_M-like mix): NLL vs the float64 forward of
//    the dequantised weights (tests/lm/reference.py), the wasm kernels' check (the C++ suite checks native ones);
//  - Qwen2.5-0.5B and Llama-3.2-1B shapes in Q4_K_M (random weights, llama.cpp's per-tensor types): they load in the
//    4 GB module, read in place (the file is held once), and run a short forward;
//  - a file larger than the module is refused with its numbers.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPosenc } from '../../web/lib/index.js';
import { bf16Llama } from './lm-tiny.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let pe, dir;
beforeAll(async () => {
  pe = await loadPosenc();
  dir = mkdtempSync(join(tmpdir(), 'posenc-quant-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** dequant.py `what` with `args`: {gguf: bytes, lines: {key: [numbers or words]}} */
function dequant(what, args) {
  const gguf = join(dir, 'q.gguf'), out = join(dir, 'q.txt');
  execFileSync('/usr/bin/python3', [join(root, 'tests/lm/dequant.py'), what, gguf, out, ...args]);
  const lines = Object.fromEntries(readFileSync(out, 'utf8').trim().split('\n').map((l) => { const [k, ...xs] = l.split(' '); return [k, xs]; }));
  const bytes = new Uint8Array(readFileSync(gguf));
  rmSync(gguf);
  return { gguf: bytes, lines };
}

// The same bounds as the C++ suite (native: max 7.5e-6 to 9.3e-5 over the formats).
test.each(['Q4_0', 'Q5_1', 'Q8_0', 'Q2_K', 'Q3_K', 'Q5_K', 'mix', 'F16'])('a random model in %s: NLL within 5e-3 (max) and 5e-4 (mean) of float64', async (fmt) => {
  const { gguf, lines } = dequant('model', ['--seed', '8', '--length', '48', '--format', fmt]);
  const lm = await pe.loadLanguageModel({ model: gguf });
  try {
    const tokens = Int32Array.from(lines.tokens.map(Number)), want = lines.nll.map(Number);
    const { nll } = lm.forward(tokens);
    const d = Array.from(nll, (x, i) => Math.abs(x - want[i]));
    console.log(`${fmt} (wasm): NLL |posenc - float64| max ${Math.max(...d).toExponential(2)} mean ${(d.reduce((x, y) => x + y, 0) / d.length).toExponential(2)}`);
    expect([fmt, Math.max(...d) < 5e-3, d.reduce((a, x) => a + x, 0) / d.length < 5e-4]).toEqual([fmt, true, true]);
    expect(lm.config.weightBytes).toBeLessThan(2 * lm.config.parameters + 16384); // kept in the format, not float32
  } finally {
    lm.delete();
  }
});

// Real sizes: 0.39 GB and 0.81 GB files. Each loads with one copy of its bytes in the module (the weights are read
// where the file lies), runs 4 tokens, and gives its memory back on delete.
test.each([['qwen2.5-0.5b', 494032768, 'qwen2'], ['llama3.2-1b', 1235814400, 'llama']])('%s shapes in Q4_K_M load and run in the 4 GB module', async (shape, params, arch) => {
  const { gguf } = dequant('shapes', ['--shape', shape]);
  const heap = pe.heapBytes();
  const lm = await pe.loadLanguageModel({ model: gguf });
  try {
    expect([lm.config.arch, lm.config.parameters]).toEqual([arch, params]);
    // the module holds the file once: its growth is the file plus the float32 vectors, not twice the file
    expect(lm.config.weightBytes).toBeLessThan(gguf.length);
    const { nll } = lm.forward(Int32Array.from([1, 20, 300, 4000]));
    expect(nll.length === 3 && nll.every(Number.isFinite)).toBe(true);
    console.log(`${shape}: file ${(gguf.length / 1e9).toFixed(3)} GB, weights ${(lm.config.weightBytes / 1e9).toFixed(3)} GB, ` +
      `module heap ${(pe.heapBytes() / 1e9).toFixed(3)} GB, NLL ${Array.from(nll, (x) => x.toFixed(2)).join(' ')}`);
  } finally {
    lm.delete();
  }
  // what stays: the matmul's scratch, two 64-row panels of the widest matrix (4 MB for 8192 columns), kept for reuse
  expect(pe.heapBytes()).toBeLessThan(heap + 8e6);
}, 600000);

test('a file larger than the module is refused with the numbers, and the module still works', async () => {
  const big = new Uint8Array(4.2e9); // zero pages: only the magic is written
  big.set([0x47, 0x47, 0x55, 0x46, 3]);
  await expect(pe.loadLanguageModel({ model: big })).rejects.toThrow(
    /^the model file takes 4\.20 GB, and the language-model module has [0-4]\.\d\d GB left of its 4\.29 GB$/);
  const { gguf } = dequant('model', ['--seed', '9', '--length', '8', '--format', 'Q4_K']);
  const lm = await pe.loadLanguageModel({ model: gguf });
  expect(lm.forward(Int32Array.from([1, 2, 3])).nll.every(Number.isFinite)).toBe(true);
  lm.delete();
});

// Addresses above 2 GB: eleven copies of a 219 MB bfloat16 model fill the module past 2^31; the last one, read at
// addresses above it, gives the first one's losses bit for bit.
test('models at addresses above 2 GB give the same losses as the first', async () => {
  const { file, config } = bf16Llama({ dim: 1024, vocab: 100_000, heads: 8, fill: (f, begin) => {
    let s = 7;
    for (let i = begin; i < f.length; i += 2) { // bfloat16 of about +-0.01: low byte random, high 0x3c or 0xbc
      s = (s * 1103515245 + 12345) >>> 0;
      f[i] = s >>> 24;
      f[i + 1] = s & 0x100 ? 0xbc : 0x3c;
    }
  } });
  const tokens = Int32Array.from([5, 99_999, 12_345, 7]);
  const models = [];
  try {
    for (let k = 0; k < 11; k++) models.push(await pe.loadLanguageModel({ model: file, config }));
    expect(pe.heapBytes()).toBeGreaterThan(2 ** 31 + 2e8);
    const first = models[0].forward(tokens).nll, last = models.at(-1).forward(tokens).nll;
    expect(first.every(Number.isFinite)).toBe(true);
    expect(Array.from(last)).toEqual(Array.from(first));
  } finally {
    for (const m of models) m.delete();
  }
}, 600000);
