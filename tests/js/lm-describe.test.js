// What a loaded language model is (lm.describe(), posenc::lm::describe through the module) and what a model file is
// (pe.detectModelFormat, posenc::lm::detect_format): the formats' one list comes from the core; a file is recognised
// by its content, whatever its name; a file that is none of them gets one sentence naming what it is; the sentence
// the page and `npm run model` print is made from the description. stories260K from ../shared (skipped with a notice
// where it is missing) and tiny random models the test writes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPosenc, MODEL_FORMATS } from '../../web/lib/index.js';
import { tinyModel, tinyFiles } from './lm-tiny.js';
import { readShared, sharedTest, SHARED } from './lm-fixtures.js';
import { modelWords, contextQuestion } from '../../web/app/lm/words.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let pe, dir;
beforeAll(async () => {
  pe = await loadPosenc();
  dir = mkdtempSync(join(tmpdir(), 'posenc-lm-describe-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tiny = () => tinyFiles(tinyModel({ seed: 9, dim: 16, layers: 1, heads: 2, kvHeads: 1, headDim: 8, hidden: 16, vocab: 11, bias: false, tied: true, partial: 1, theta: 1e4 }));
const text = (s) => new TextEncoder().encode(s);
const NOT = '^this file is not a llama2\\.c \\.bin, a GGUF or a safetensors file: ';

test('the formats come from the core, in its order; a file is recognised by its content, not its name', async () => {
  const formats = await pe.modelFormats();
  expect(formats.map((f) => [f.id, f.label, f.extension])).toEqual([['llama2c', 'llama2.c checkpoint', '.bin'], ['gguf', 'GGUF', '.gguf'],
    ['safetensors', 'Hugging Face safetensors', '.safetensors']]);
  expect(Object.isFrozen(formats)).toBe(true);
  expect(MODEL_FORMATS).toEqual(formats); // the build's copy (web/wasm/registry.js, which the page's model sources module reads)
  const { model } = tiny();
  expect(await pe.detectModelFormat(model)).toBe('safetensors');
  expect(await pe.detectModelFormat(model.buffer)).toBe('safetensors');
  // cut short, it is still a safetensors file, which the reader says is truncated
  expect(await pe.detectModelFormat(model.slice(0, 40))).toBe('safetensors');
  await expect(pe.loadLanguageModel({ model: model.slice(0, 40), config: tiny().config })).rejects.toThrow(/truncated/);
  const huge = model.slice(0, 40);
  huge[6] = 1; // a header length of 2^48 bytes: not a safetensors file
  await expect(pe.detectModelFormat(huge)).rejects.toThrow(new RegExp(NOT));
  await expect(pe.detectModelFormat('x')).rejects.toThrow(TypeError);
});

sharedTest('stories260K: the .bin by its header, the GGUF by its magic; its tokenizer.bin is no model', async () => {
  expect(await pe.detectModelFormat(readShared('stories260K.bin'))).toBe('llama2c');
  expect(await pe.detectModelFormat(readShared('stories260K.gguf'))).toBe('gguf');
  // The tokenizer's first int32 is its longest piece: no model header. (The old rule took any file that was not a GGUF
  // or a safetensors file for a .bin and answered "llama2.c header: ...".)
  await expect(pe.detectModelFormat(readShared('tok512.bin'))).rejects.toThrow(new RegExp(`${NOT}it starts with the bytes [0-9a-f ]{23} \\(".{8}"\\)$`));
  // A truncated .bin still has its header: it is a .bin, and the loader says what is wrong with it.
  const cut = readShared('stories260K.bin').subarray(0, 5000);
  expect(await pe.detectModelFormat(cut)).toBe('llama2c');
  await expect(pe.loadLanguageModel({ model: cut })).rejects.toThrow(/^llama2\.c checkpoint has 5000 bytes; its header .* needs 1056540: truncated$/);
});

test('a file that is none of the formats: one sentence naming what it is; nothing leaks; the module still works', async () => {
  const noise = new Uint8Array(4096);
  for (let i = 0, x = 12345; i < noise.length; i++) noise[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  noise.set([0x3f, 0x9a, 0x00, 0x12, 0x41, 0x42, 0x0a, 0xff]);
  const cases = [
    [noise, `${NOT}it starts with the bytes 3f 9a 00 12 41 42 0a ff \\("\\?\\.\\.\\.AB\\.\\."\\)$`],
    [new Uint8Array(0), `${NOT}it is empty$`],
    [text('  <!doctype html><html><body>Repository not found</body></html>'), `${NOT}it starts with '<', as a web page does`],
    [text('version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 100\n'), `${NOT}it is a Git LFS pointer`],
    [new Uint8Array([0x50, 0x4b, 3, 4, 20, 0, 0, 0, 8, 0]), `${NOT}it is a zip archive \\(PyTorch's \\.pt and \\.pth checkpoints are\\)`],
    [text('{"model_type": "llama"}'), `${NOT}it is JSON text`],
  ];
  const pass = async () => {
    for (const [bytes, re] of cases) {
      let err;
      try { (await pe.loadLanguageModel({ model: bytes })).delete(); } catch (e) { err = e; }
      expect([re, err?.constructor?.name]).toEqual([re, 'RangeError']);
      expect(err.message).toMatch(new RegExp(re));
    }
  };
  await pass();
  const heap = pe.heapBytes();
  await pass();
  expect(pe.heapBytes()).toBe(heap);
  const { model, config } = tiny();
  const lm = await pe.loadLanguageModel({ model, config });
  expect(lm.forward([1, 2, 3]).nll.every(Number.isFinite)).toBe(true);
  lm.delete();
});

test('describe: family, format, tensors by type and the memory of the weights, from the loaded model', async () => {
  const p = tinyModel({ seed: 11, dim: 16, layers: 2, heads: 2, kvHeads: 1, headDim: 8, hidden: 24, vocab: 13, bias: true, tied: true, partial: 1, theta: 1e4 });
  const { model, config } = tinyFiles(p);
  // The embedding rewritten as BF16 (its float32 values' high halves): a file of two types.
  const hdr = JSON.parse(new TextDecoder().decode(model.subarray(8, 8 + Number(new DataView(model.buffer).getBigUint64(0, true)))));
  const names = Object.keys(hdr), emb = 'model.embed_tokens.weight';
  const parts = names.map((n) => {
    const [a, b] = hdr[n].data_offsets, body = model.subarray(8 + new TextEncoder().encode(JSON.stringify(hdr)).length + a, 8 + new TextEncoder().encode(JSON.stringify(hdr)).length + b);
    if (n !== emb) return { n, dtype: 'F32', shape: hdr[n].shape, body };
    const half = new Uint8Array(body.length / 2);
    for (let i = 0; i < half.length / 2; i++) half.set(body.subarray(4 * i + 2, 4 * i + 4), 2 * i);
    return { n, dtype: 'BF16', shape: hdr[n].shape, body: half };
  });
  const header = {};
  let at = 0;
  for (const t of parts) { header[t.n] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + t.body.length] }; at += t.body.length; }
  const json = text(JSON.stringify(header)), file = new Uint8Array(8 + json.length + at);
  new DataView(file.buffer).setBigUint64(0, BigInt(json.length), true);
  file.set(json, 8);
  let o = 8 + json.length;
  for (const t of parts) { file.set(t.body, o); o += t.body.length; }
  const lm = await pe.loadLanguageModel({ model: file, config });
  try {
    const d = lm.describe();
    const params = 13 * 16 + 16 + 2 * (2 * 16 + 16 * 16 + 2 * 8 * 16 + 16 * 16 + 16 + 2 * 8 + 3 * 24 * 16);
    expect(d).toEqual({ family: 'qwen2', familyLabel: 'Qwen2', format: 'safetensors', formatLabel: 'Hugging Face safetensors',
      dtypes: [{ dtype: 'F32', tensors: names.length - 1 }, { dtype: 'BF16', tensors: 1 }], parameters: params, weightBytes: 4 * params - 2 * 13 * 16, // (the BF16 embedding, 13 x 16, stays 16-bit)
      context: 64, contextSource: 'file', suggestedContext: 0, suggestionReason: '' });
    expect(d.parameters).toBe(lm.config.parameters);
    expect(modelWords(d)).toBe(`A Qwen2 model from a Hugging Face safetensors file: ${params.toLocaleString('en-US')} parameters in ` +
      `${names.length - 1} F32 and 1 BF16 tensors, whose weights take ${(d.weightBytes / 1e3).toFixed(1)} kB of memory here.`);
  } finally {
    lm.delete();
  }
  expect(() => lm.describe()).toThrow(/deleted/);
});

sharedTest('describe: stories260K\'s .bin (the trained context) and GGUF (a converter\'s default, 512 suggested from its shapes)', async () => {
  const bin = await pe.loadLanguageModel({ model: readShared('stories260K.bin'), tokenizer: readShared('tok512.bin') });
  const gguf = await pe.loadLanguageModel({ model: readShared('stories260K.gguf') });
  try {
    expect(bin.describe()).toEqual({ family: 'llama', familyLabel: 'Llama', format: 'llama2c', formatLabel: 'llama2.c checkpoint', dtypes: [{ dtype: 'F32', tensors: 47 }],
      parameters: 260032, weightBytes: 1040128, context: 512, contextSource: 'trained', suggestedContext: 0, suggestionReason: '' });
    const d = gguf.describe();
    expect(d).toMatchObject({ family: 'llama', format: 'gguf', formatLabel: 'GGUF', dtypes: [{ dtype: 'F32', tensors: 48 }], parameters: 292800,
      weightBytes: 1171200, context: 2048, contextSource: 'converter default', suggestedContext: 512 });
    expect(d.suggestionReason).toBe('its shapes (width 64, 5 layers, 8 heads sharing 4 key-value heads, a vocabulary of 512 tokens) are those of llama2.c\'s ' +
      'stories260K, which its author trained with a context of 512 tokens');
    expect(modelWords(d)).toBe('A Llama model from a GGUF file: 292,800 parameters in 48 F32 tensors, whose weights take 1.17 MB of memory here.');
    expect(contextQuestion(d)).toMatch(/^The file says its context is 2,048 tokens, but that number is its converter's default, .* Suggested: 512 tokens, since its shapes/);
  } finally {
    bin.delete();
    gguf.delete();
  }
});

sharedTest('npm run model prints the same description, and one sentence for a file that is no model', () => {
  const S = (f) => fileURLToPath(new URL(f, SHARED));
  const textFile = join(dir, 'story.txt');
  writeFileSync(textFile, 'Once upon a time there was a little dog. He liked to run in the park with his friend the cat.');
  const run = (...args) => spawnSync(process.execPath, [join(root, 'scripts/model.js'), ...args], { encoding: 'utf8' });
  const r = run('--model', S('stories260K.gguf'), '--text', textFile);
  expect(r.status).toBe(0);
  const [first, second] = r.stdout.split('\n');
  expect(first).toBe('A Llama model from a GGUF file: 292,800 parameters in 48 F32 tensors, whose weights take 1.17 MB of memory here.');
  expect(second).toMatch(/context 2048 \(the file's, its converter's default: suggested 512, since its shapes .* stories260K.*; correct it with --context\)/);
  const junk = join(dir, 'random.gguf');
  writeFileSync(junk, Buffer.from([0x3f, 0x9a, 0x00, 0x12, 0x41, 0x42, 0x0a, 0xff, 1, 2, 3]));
  const bad = run('--model', junk, '--text', textFile);
  expect([bad.status, bad.stdout]).toEqual([2, '']);
  expect(bad.stderr).toBe('npm run model: this file is not a llama2.c .bin, a GGUF or a safetensors file: it starts with the bytes 3f 9a 00 12 41 42 0a ff ("?...AB..")\n');
}, 60000);

// Lines that load or treat one model-file format by name: a comparison with a format's id ("format === 'gguf'",
// 'case "llama2c":'), a format's own loader or enum (lmLoadGguf, load_gguf, from_tensors, Source::Gguf), or a format
// by a hard-coded place in the table (formats[2], "source: 2"). Comment lines are left out.
export function formatBranches(text, ids = MODEL_FORMATS.map((f) => f.id)) {
  const id = `['"\`](${ids.join('|')})['"\`]`;
  const re = new RegExp([`[=!]==?\\s*${id}`, `${id}\\s*[=!]==?`, `case\\s+${id}`, `\\b(lmLoad[A-Z]\\w*|lmFromTensors|lm_load_\\w+|lm_from_tensors)\\b`,
    `\\b(load_(${ids.join('|')})|from_tensors|load_llama2c_tokenizer|lmLoadTokenizer)\\b`, '\\bSource::\\w+', '\\b(formats|formatIds|file_formats\\(\\))\\[\\d+\\]', '\\bsource:\\s*\\d'].join('|'));
  return text.split('\n').map((l, i) => [i + 1, l]).filter(([, l]) => re.test(l) && !/^\s*(\/\/|\*|\/\*)/.test(l)).map(([i, l]) => `${i}: ${l.trim()}`);
}

test('the binding and the library load every format through the table: no branch on a format by name', () => {
  for (const f of ['cpp/wasm/bindings_lm.cpp', 'web/lib/lm.js'])
    expect([f, formatBranches(readFileSync(join(root, f), 'utf8'))]).toEqual([f, []]);
  // and the check sees the branches that were there
  expect(formatBranches("        return format === 'gguf' ? mod.lmLoadGguf(p, model.length, out) : mod.lmLoadLlama2c(p, model.length, out);")).toHaveLength(1);
  expect(formatBranches("      } else if (format === 'llama2c') note = 'no tokenizer.bin was given';\n    if (format === 'safetensors') x();")).toHaveLength(2);
  expect(formatBranches('  function("lmFromTensors", &lm_from_tensors);\n    lm::Loaded l = lm::load_gguf(at<const uint8_t>(bytes), n, std::move(file));')).toHaveLength(2);
  expect(formatBranches("    const config = { arch: family, source: 2, dim: arch.hiddenSize };\n  return formatIds[2];")).toHaveLength(2);
  expect(formatBranches('  // format === \'gguf\' in a comment\n  r.set("gguf", f.gguf);\n  static_cast<std::size_t>(lm::ContextSource::ConverterDefault)')).toEqual([]);
});
