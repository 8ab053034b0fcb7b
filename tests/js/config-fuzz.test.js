// Property-based fuzzing of the config.json reader (pe.ropeFromConfig, and describeArchitecture, which the
// real-model loader reads), the parser of a stranger's config.json text and objects. Each case starts from a shipped public config (web/configs/*.json)
// and applies random mutations: keys dropped, values replaced by hostile ones (NaN, Infinity, -0,
// huge or fractional numbers, strings, arrays, nested junk, null), rope blocks and layer types
// rewritten, families swapped, and the JSON text itself truncated or corrupted.
// Contract, for every case:
//  - each reader returns, or throws a TypeError or RangeError with a one-line message (never
//    another error, a bare value, a hang or a wasm abort);
//  - what it returns holds no NaN anywhere, and its frequencies are finite and >= 0;
//  - the wasm heap is the same after the cases as before (nothing leaks on any path).
// The sequence is seeded, so npm test gives the same verdict every run. Explore a new one with
// POSENC_FUZZ_SEED=random (the seed is printed in the test's name); POSENC_FUZZ_CASES sets the count.
import { readFileSync, readdirSync } from 'node:fs';
import { loadPosenc, describeArchitecture } from '../../web/lib/index.js';
import { mulberry32 } from './reference.js';

const SEED = process.env.POSENC_FUZZ_SEED === 'random' ? (Math.random() * 2 ** 32) >>> 0 : Number(process.env.POSENC_FUZZ_SEED ?? 0xc0f1);
const CASES = Number(process.env.POSENC_FUZZ_CASES ?? 3000);

const dir = new URL('../../web/configs/', import.meta.url);
const CONFIGS = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
  .map((f) => ({ name: f, text: readFileSync(new URL(f, dir), 'utf8') }));
const FAMILIES = ['llama', 'llama4_text', 'qwen2', 'qwen3', 'gemma3_text', 'gemma4_text', 'deepseek_v3', 'deepseek_v32', 'mistral',
  'phi3', 'gpt_oss', 'smollm3', 'cohere', 'cohere2', 'exaone4', 'olmo3', 'glm', 'glm4', 'glm4_moe', 'qwen2_vl', 'qwen3_vl', 'unknown_family', ''];
const ROPE_TYPES = ['default', 'linear', 'dynamic', 'yarn', 'longrope', 'llama3', 'proportional', 'su', 'mrope', 'bogus'];

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

let rnd = mulberry32(SEED);
const pick = (a) => a[Math.floor(rnd() * a.length)];
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const chance = (p) => rnd() < p;

function hostile(depth = 0) {
  switch (int(0, 17)) {
    case 0: return NaN;
    case 1: return pick([Infinity, -Infinity]);
    case 2: return -0;
    case 3: return pick([0, -1, 1, 2, 0.5, 1e-300, 1e300, 2 ** 31, 2 ** 53 + 2, -(2 ** 31)]);
    case 4: return int(-4, 70000);
    case 5: return rnd() * 10 ** int(-8, 12);
    case 6: return pick(['', 'yarn', '1e4', 'full_attention', 'sliding_attention', '__proto__', 'x'.repeat(int(1, 300))]);
    case 7: return null;
    case 8: return pick([true, false]);
    case 9: return [];
    case 10: return Array.from({ length: int(1, 8) }, () => (depth < 3 ? hostile(depth + 1) : 1));
    case 11: return {};
    case 12: return depth < 3 ? { [pick(['rope_type', 'factor', 'rope_theta', 'type', 'full_attention', 'main'])]: hostile(depth + 1) } : {};
    case 13: return pick(ROPE_TYPES);
    case 14: return Array.from({ length: int(0, 4) }, () => int(0, 64));
    case 15: return { rope_type: pick(ROPE_TYPES), factor: pick([0.5, 1, 4, 8, 32, 1e9]), original_max_position_embeddings: pick([0, 512, 8192, 2 ** 40]) };
    case 16: return pick(FAMILIES);
    default: return int(0, 2) ? int(1, 8) : 0.25 * int(0, 8);
  }
}

// A path to a random key of a plain object tree (objects and arrays), at most 3 deep.
function randomSlot(root) {
  let o = root;
  for (let d = 0; d < 3; d++) {
    const keys = Array.isArray(o) ? o.map((_, i) => i) : Object.keys(o);
    if (!keys.length) return null;
    const k = pick(keys);
    const v = o[k];
    if (v !== null && typeof v === 'object' && chance(0.5)) o = v;
    else return [o, k];
  }
  return null;
}

function mutate(config) {
  const what = int(0, 9);
  const slot = randomSlot(config);
  switch (what) {
    case 0: case 1: if (slot) delete slot[0][slot[1]]; return 'drop';
    case 2: case 3: case 4: if (slot) slot[0][slot[1]] = hostile(); return 'replace';
    case 5: config.model_type = pick(FAMILIES); return 'family';
    case 6: config[pick(['rope_scaling', 'rope_parameters'])] = hostile(); return 'rope block';
    case 7: {
      const n = Number.isInteger(config.num_hidden_layers) && config.num_hidden_layers >= 0 && config.num_hidden_layers <= 4096
        ? config.num_hidden_layers : int(1, 6);
      config.layer_types = chance(0.7) ? Array.from({ length: n }, () => pick(['full_attention', 'sliding_attention', 'chunked_attention', 'x']))
        : hostile();
      return 'layer types';
    }
    case 8: config[pick(['no_rope_layers', 'mrope_section', 'sliding_window', 'partial_rotary_factor', 'head_dim', 'qk_rope_head_dim'])] = hostile(); return 'family key';
    default: {
      const keys = ['max_position_embeddings', 'rope_theta', 'num_attention_heads', 'hidden_size', 'num_hidden_layers'];
      config[pick(keys)] = hostile();
      return 'size';
    }
  }
}

function textCase(text) {
  switch (int(0, 3)) {
    case 0: return text.slice(0, int(0, text.length));
    case 1: { const i = int(0, text.length - 1); return text.slice(0, i) + pick(['{', '}', '"', ',', ':', '[', '\u0000', 'NaN', '1e999']) + text.slice(i + 1); }
    case 2: return `${'['.repeat(int(1, 60))}${text}`;
    default: return text.replace(/\d+/g, () => pick(['0', '-1', '1e400', '99999999999999999999', '0.5']));
  }
}

// Every number in what ropeFromConfig returned (typed arrays included), with its path.
function* numbers(x, path = 'result', depth = 0) {
  if (typeof x === 'number') yield [path, x];
  else if (ArrayBuffer.isView(x)) for (let i = 0; i < x.length; i++) yield [`${path}[${i}]`, x[i]];
  else if (x && typeof x === 'object' && depth < 8)
    for (const [k, v] of Object.entries(x)) yield* numbers(v, `${path}.${k}`, depth + 1);
}

function checkResult(r) {
  for (const [path, n] of numbers(r)) {
    if (Number.isNaN(n)) throw new Error(`NaN at ${path}`);
    if (/invFreq/.test(path) && !(Number.isFinite(n) && n >= 0)) throw new Error(`${path} = ${n}`);
  }
}

test(`${CASES} mutated config.json objects and texts: results without NaN or named TypeError/RangeError, heap flat (seed ${SEED})`, () => {
  const one = (read, input, what) => {
    try {
      checkResult(read(input));
      return 'ok';
    } catch (e) {
      if (!(e instanceof TypeError || e instanceof RangeError))
        throw new Error(`${what}: ${e?.constructor?.name ?? typeof e}: ${String(e?.message ?? e).slice(0, 300)}`);
      if (typeof e.message !== 'string' || !e.message.length || e.message.length > 1000 || /\n/.test(e.message))
        throw new Error(`${what}: not a one-line message: ${JSON.stringify(String(e.message).slice(0, 300))}`);
      return 'refused';
    }
  };
  // ropeFromConfig decides the case's outcome; describeArchitecture must keep the same contract on it.
  const run = (input, what) => {
    one(describeArchitecture, input, `${what} (describeArchitecture)`);
    return one((x) => pe.ropeFromConfig(x), input, what);
  };
  const pass = () => {
    rnd = mulberry32(SEED);
    const tally = { ok: 0, refused: 0 };
    for (let i = 0; i < CASES; i++) {
      const base = pick(CONFIGS);
      if (chance(0.15)) {
        tally[run(textCase(base.text), `case ${i}: text of ${base.name}`)]++;
        continue;
      }
      const config = JSON.parse(base.text);
      const done = [];
      for (let m = int(1, 4); m > 0; m--) done.push(mutate(config));
      tally[run(config, `case ${i}: ${base.name} with ${done.join(', ')}`)]++;
    }
    return tally;
  };
  // The first pass brings the core's scratch buffers to their high-water mark (120 bytes at this seed); the
  // same cases again must leave the heap exactly where it was.
  const tally = pass();
  const heap = pe.heapBytes();
  expect(pass()).toEqual(tally);
  // Both outcomes are reached (a fuzzer that only ever hits the first check tests nothing).
  expect(tally.ok).toBeGreaterThan(CASES / 20);
  expect(tally.refused).toBeGreaterThan(CASES / 20);
  expect(pe.heapBytes() - heap).toBe(0);
});
