// Checkpoints move between the native build (AVX2) and wasm in both
// directions and give the same logits (to float rounding: the two builds
// sum in different orders).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPosenc } from '../../web/lib/index.js';

const tool = new URL('../../build/native/posenc_checkpoint_tool', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'posenc-ckpt-'));
let pe;
beforeAll(async () => {
  if (!existsSync(tool)) throw new Error(`${tool} is missing: run npm test (it builds the native tools)`);
  pe = await loadPosenc();
});

const tokens = [1, 3, 7, 4, 9, 2, 3, 7, 4, 9, 5, 6];
const nativeLogits = (file) =>
  JSON.parse(execFileSync(tool, ['logits', file, String(tokens.length), ...tokens.map(String)], { encoding: 'utf8' }));
const expectClose = (a, b) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-4);
};

test.each(['rope', 'alibi', 't5', 'learned', 'shaw'])('%s: native checkpoint loads in wasm, wasm checkpoint loads natively', (encoding) => {
  const nativeFile = join(dir, `${encoding}-native.ckpt`);
  execFileSync(tool, ['save', encoding, nativeFile]);
  const model = pe.loadModel(readFileSync(nativeFile));
  expect(model.config.encoding).toBe(encoding);
  expect(model.trainedLength).toBe(16);
  const wasm = model.forward(Int32Array.from(tokens), { length: tokens.length }).logits;
  expectClose(wasm, nativeLogits(nativeFile));

  const wasmFile = join(dir, `${encoding}-wasm.ckpt`);
  writeFileSync(wasmFile, model.save());
  expectClose(nativeLogits(wasmFile), wasm);
  model.delete();
});

test('the native loader rejects a corrupted wasm checkpoint with a clear message', () => {
  const model = pe.createModel({ encoding: 'rope', vocabSize: 11, maxLength: 16, dModel: 32, heads: 2 });
  const bytes = model.save();
  model.delete();
  bytes[bytes.length - 3] ^= 0xff;
  const file = join(dir, 'bad.ckpt');
  writeFileSync(file, bytes);
  let stderr = '';
  try {
    nativeLogits(file);
  } catch (e) {
    stderr = String(e.stderr);
  }
  expect(stderr).toMatch(/checksum/);
});
