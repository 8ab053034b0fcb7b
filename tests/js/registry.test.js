// The encoding registry and the config schema live in C++ (cpp/src/encodings/encodings.cpp,
// cpp/src/model/config_schema.cpp); everything in JS reads them. These tests hold that together:
// the build-time copy (web/wasm/registry.js) is the module's, the page's names come from it,
// no source file restates the list, and the checkpoint reader / learned policy / optimizer
// settings go through the library.
import { readFileSync } from 'node:fs';
import { SHIPPED_WEIGHTS } from '../../scripts/convert-checkpoints.js';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadPosenc, ENCODINGS, ENCODING_INFO, CONFIG_SCHEMA, OPTIMIZER_SCHEMA, MODEL_FORMATS } from '../../web/lib/index.js';
import { instantiate } from '../../web/lib/loader.js';
import { NAMES, BLURBS } from '../../web/app/shared/meta.js';
import { SCHEMA } from '../../web/app/shared/state.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ckpt = (f) => readFileSync(new URL(`../../web/checkpoints/${f}`, import.meta.url));
let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

test.each(['simd', 'scalar'])('the exported registry and schemas are the %s module\'s', async (build) => {
  const { mod } = await instantiate({ build });
  expect(ENCODING_INFO).toEqual(mod.encodingList());
  expect(CONFIG_SCHEMA).toEqual(mod.configSchema());
  expect(OPTIMIZER_SCHEMA).toEqual(mod.optimizerSchema());
  expect(ENCODINGS).toEqual(mod.encodingList().map((e) => e.name));
  expect(pe.encodings.map((e) => e.name)).toEqual(ENCODINGS);
});

test('ids are stable: the first seven are the shipped checkpoints\' ids', () => {
  // Checkpoints store the id: these must never change (web/checkpoints hold ids 0..6).
  const shipped = ['none', 'sinusoidal', 'learned', 't5', 'alibi', 'rope', 'shaw'];
  shipped.forEach((name, id) => expect(ENCODING_INFO[id]).toMatchObject({ name, id }));
  ENCODING_INFO.forEach((e, i) => expect(e.id).toBe(i));
  for (const name of shipped) expect(pe.readCheckpoint(ckpt(`copy-${name}.ckpt`)).config.encoding).toBe(name);
});

// The values of an enum class in a C++ header ('' for an enum with no enumerators), or null when there is none.
function enumerators(header, name) {
  const m = new RegExp(`enum class ${name}\\b[^{;]*\\{([^}]*)\\}`).exec(header);
  return m ? m[1].replace(/\/\/.*$/gm, '').trim() : null;
}

test('the C++ names an encoding or a rope type only by its row: no enumerators to keep in step with the tables', () => {
  expect(enumerators(readFileSync(`${root}cpp/include/posenc/encoding.hpp`, 'utf8'), 'Encoding')).toBe('');
  expect(enumerators(readFileSync(`${root}cpp/include/posenc/rope_scaling.hpp`, 'utf8'), 'RopeType')).toBe('');
  expect(enumerators('enum class Encoding : uint32_t {\n  None = 0,  // NoPE\n  Rope = 1,\n};', 'Encoding')).toBe('None = 0,  \n  Rope = 1,');
});

test('the page\'s names, blurbs and encodings list come from the registry', () => {
  expect(Object.keys(NAMES)).toEqual([...ENCODINGS]);
  expect(Object.keys(BLURBS)).toEqual([...ENCODINGS]);
  for (const e of ENCODING_INFO) expect(NAMES[e.name]).toBe(e.label);
  expect(JSON.stringify(SCHEMA.encodings)).toContain('xpos');
});

test('no source file outside the registry restates the list of encodings', () => {
  const files = execFileSync('git', ['ls-files', 'web', 'bench', 'cpp', 'scripts'], { cwd: root }).toString()
    .split('\n').filter((f) => /\.(js|mjs|cpp|hpp)$/.test(f) && f !== 'cpp/src/encodings/encodings.cpp');
  const found = [];
  for (const f of files) {
    const lines = readFileSync(root + f, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const named = ENCODINGS.filter((e) => new RegExp(`['"\`]${e}['"\`]|\\b${e},|,${e}\\b`).test(line));
      // A paper's compared set is data about the paper (the line after a "paper-set" comment), not a list of ours.
      if (named.length >= 4 && !/paper-set/.test(lines[i - 1] ?? '')) found.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(found).toEqual([]);
});

test('ranges agree: the JS checks are the C++ schema\'s', () => {
  const t5 = CONFIG_SCHEMA.find((f) => f.name === 't5NumBuckets');
  expect([t5.min, t5.max]).toEqual([2, 1024]);
  expect(() => pe.createModel({ vocabSize: 11, encoding: 't5', t5NumBuckets: 1025 })).toThrow(/t5NumBuckets must be an integer in \[2, 1024\]/);
  // A field only some encodings read is range-checked for them only (as in C++).
  pe.createModel({ vocabSize: 11, encoding: 'rope', shawK: 5000 }).delete();
  expect(() => pe.createModel({ vocabSize: 11, encoding: 'shaw', shawK: 5000 })).toThrow(RangeError);
  expect(() => pe.createModel({ vocabSize: 11, encoding: 'prope', ropeFraction: 0 })).toThrow(/ropeFraction must be a finite number > 0 and <= 1/);
  // Defaults are ModelConfig{}'s.
  const m = pe.createModel({ vocabSize: 11 });
  for (const f of CONFIG_SCHEMA) if (!f.required) expect(m.config[f.name]).toBe(f.type === 'choice' ? f.choices[f.default] : f.default);
  m.delete();
});

test('readCheckpoint checks like loadModel and reads the header only', () => {
  const bytes = ckpt('copy-learned.ckpt');
  const info = pe.readCheckpoint(bytes);
  const model = pe.loadModel(bytes);
  expect(info.config).toEqual(model.config);
  expect(info.trainedLength).toBe(model.trainedLength);
  expect(info.version).toBe(3); // shipped in int8 + float16
  expect(info.weights).toBe(SHIPPED_WEIGHTS);
  expect(info.parameters).toBe(model.numParameters);
  const wide = pe.readCheckpoint(model.save({ weights: 'float32' }));
  expect([wide.version, wide.weights]).toEqual([1, 'float32']);
  model.delete();
  const bad = new Uint8Array(bytes);
  bad[200] ^= 1;
  expect(() => pe.readCheckpoint(bad)).toThrow(/checksum mismatch/);
  expect(() => pe.readCheckpoint(bytes.subarray(0, 50))).toThrow(/truncated/);
  expect(() => pe.readCheckpoint('x')).toThrow(TypeError);
});

test('loadModel sets the learned policy through the API', () => {
  const bytes = ckpt('copy-learned.ckpt'); // saved with 'clamp'
  const saved = pe.loadModel(bytes);
  expect(saved.config.learnedPolicy).toBe('clamp');
  const n = saved.config.maxLength, T = n + 8, tokens = Array.from({ length: T }, (_, i) => (i * 3) % 5);
  const strict = pe.loadModel(bytes, { learnedPolicy: 'error' });
  expect(strict.config.learnedPolicy).toBe('error');
  expect(() => strict.forward(tokens, { length: T })).toThrow(/learnedPolicy 'error'/);
  const zero = pe.loadModel(bytes, { learnedPolicy: 'zero' });
  const a = zero.forward(tokens, { length: T }).logits, c = saved.forward(tokens, { length: T }).logits;
  // Inside the table the policy changes nothing; past it, 'zero' and 'clamp' differ.
  expect(a.subarray(0, n * 11)).toEqual(c.subarray(0, n * 11));
  expect(a.subarray(n * 11)).not.toEqual(c.subarray(n * 11));
  // The weights are the saved ones: the checkpoint round trip keeps the new policy.
  const again = pe.loadModel(zero.save({ weights: 'float32' }));
  expect(again.config.learnedPolicy).toBe('zero');
  expect(again.forward(tokens, { length: T }).logits).toEqual(a);
  expect(() => pe.loadModel(bytes, { learnedPolicy: 'wrap' })).toThrow(/learnedPolicy must be one of 'error', 'clamp', 'zero'/);
  expect(() => pe.loadModel(bytes, { policy: 'clamp' })).toThrow(/unknown option/);
  for (const m of [saved, strict, zero, again]) m.delete();
});

test('AdamW settings: the experiment\'s by default, settable through train() and setOptimizer', async () => {
  const m = pe.createModel({ vocabSize: 11, layers: 1, dModel: 8, heads: 2, maxLength: 8 });
  const defaults = Object.fromEntries(OPTIMIZER_SCHEMA.map((f) => [f.name, f.default]));
  expect(m.optimizer).toEqual(defaults);
  expect(m.optimizer.beta2).toBe(Math.fround(0.95));
  await pe.train(m, { task: 'copy', symbols: 4, steps: 2, batch: 2, length: 8, beta2: 0.999, weightDecay: 0 });
  expect(m.optimizer).toEqual({ ...defaults, beta2: Math.fround(0.999), weightDecay: 0 });
  expect(() => m.setOptimizer({ beta2: 1 })).toThrow(/beta2 must be a finite number >= 0 and < 1/);
  await expect(pe.train(m, { task: 'copy', steps: 1, beta1: -1 })).rejects.toThrow(/beta1/);
  expect(m.optimizer.beta1).toBe(defaults.beta1);
  m.delete();
});

// The declarations' format ids, as written (tsc checks every use of the one union against it).
export const declaredFormatIds = (text) => text.match(/export type ModelFormatId = ([^;]+);/)[1].split('|').map((s) => s.trim().replace(/'/g, ''));

test('the declared model format ids are the core\'s formats, in its order', () => {
  const text = readFileSync(`${root}types/posenc.d.ts`, 'utf8');
  expect(declaredFormatIds(text)).toEqual(MODEL_FORMATS.map((f) => f.id));
  // and a declaration missing one fails
  expect(declaredFormatIds(text.replace(" | 'safetensors';", ';'))).not.toEqual(MODEL_FORMATS.map((f) => f.id));
});

// The declarations' parts that restate the tables (the encodings, ModelOptions, the scaling types, the formats) are
// written from them by scripts/declarations.js (npm run generate), never by setup: the committed files must be what
// the tables give, and a changed table must change them.
test('the TypeScript declarations restate the core\'s tables only as the generator writes them', async () => {
  const { generatedParts, withParts, DECLARATION_FILES } = await import('../../scripts/declarations.js');
  const { ROPE_SCALING_SCHEMA } = await import('../../web/wasm/registry.js');
  const tables = { encodings: ENCODING_INFO, schema: CONFIG_SCHEMA, ropeScaling: ROPE_SCALING_SCHEMA, modelFormats: MODEL_FORMATS };
  const parts = generatedParts(tables);
  const seen = new Set();
  for (const f of DECLARATION_FILES) {
    const text = readFileSync(root + f, 'utf8');
    expect([f, withParts(text, parts)]).toEqual([f, text]);
    for (const m of text.matchAll(/\/\/ generated:([\w-]+)/g)) seen.add(m[1]);
  }
  expect([...seen].sort()).toEqual(Object.keys(parts).sort()); // every part has its place, once
  // mutations: a new encoding with a field of its own, a new format
  const dummy = { ...ENCODING_INFO[0], name: 'dummy', id: ENCODING_INFO.length, fields: 'dummyWidth' };
  const more = generatedParts({ ...tables, encodings: [...ENCODING_INFO, dummy],
    schema: [...CONFIG_SCHEMA, { ...CONFIG_SCHEMA.find((x) => x.name === 'shawK'), name: 'dummyWidth', doc: 'its width', encodings: ['dummy'] }],
    modelFormats: [...MODEL_FORMATS, { ...MODEL_FORMATS[0], id: 'dummy' }] });
  const posenc = withParts(readFileSync(`${root}types/posenc.d.ts`, 'utf8'), more);
  expect(posenc).toMatch(new RegExp(`export type Encoding = [^;]*'${ENCODING_INFO.at(-1).name}' \\| 'dummy';`));
  expect(posenc).toMatch(/\/\*\* 'dummy' only: its width, int \[0, 4096\]\. @default 16 \*\/\n\s+dummyWidth\?: number;/);
  expect(posenc).toMatch(/export type ModelFormatId = [^;]*\| 'dummy';/);
  expect(() => withParts('// generated:encoding\nx', parts)).toThrow(/no end:encoding/);
});
