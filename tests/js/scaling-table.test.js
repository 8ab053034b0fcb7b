// The RoPE scaling types and their keys are one table in the core (cpp/src/rope_scaling.cpp), exported through the
// module (ropeScalingSchema()). These tests hold the rest to it: the build-time copy is the module's, the table's
// columns agree with what the core computes (the keys a type reads, the defaults, the bounds), and no list in the
// library, the page, the types or the README restates it by hand.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadPosenc, ROPE_TYPES, ROPE_TYPE_INFO, SCALING_FIELDS, scalingBlock } from '../../web/lib/index.js';
import { TYPE_CODE, contextKey } from '../../web/lib/scaling.js';
import { ROPE_SCALING_SCHEMA } from '../../web/wasm/registry.js';
import { instantiate } from '../../web/lib/loader.js';
import { ROPE_SCALINGS, SCHEMA } from '../../web/app/shared/state.js';
import { scalingObject } from '../../web/app/rope/rope-scaling.js';
import { SCALING_NAMES } from '../../web/app/lm/plan.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const DIM = 16;
let pe;
beforeAll(async () => {
  pe = await loadPosenc({ build: 'scalar' });
});

test.each(['simd', 'scalar'])('the exported table is the %s module\'s', async (build) => {
  const { mod } = await instantiate({ build });
  expect(JSON.parse(JSON.stringify(ROPE_SCALING_SCHEMA))).toEqual(JSON.parse(JSON.stringify(mod.ropeScalingSchema())));
  expect(ROPE_TYPES).toEqual(mod.ropeScalingSchema().types.map((t) => t.name));
});

// A block every type accepts: each required key set.
const valid = (type) => ({ rope_type: type, factor: 2, max_position_embeddings: 16384, original_max_position_embeddings: 4096,
  low_freq_factor: 1, high_freq_factor: 4, long_factor: Array(DIM / 2).fill(1.5), short_factor: Array(DIM / 2).fill(1.25) });
const freqs = (scaling) => {
  const r = pe.ropeFrequencies({ dim: DIM, base: 10000, scaling, seqLen: 32768 });
  return [...r.invFreq, r.attentionScale];
};
const numbers = SCALING_FIELDS.filter((f) => f.kind === 'number');
// A valid value other than the default, for each number key.
const other = (f) => (f.max === 1 ? 0.5 : f.key === 'beta_fast' ? 8 : f.key === 'beta_slow' ? 0.1 : 3);

test('a type computes the same frequencies whatever the keys it does not read hold', () => {
  for (const t of ROPE_TYPE_INFO) {
    const base = freqs(valid(t.name));
    for (const f of numbers.filter((x) => !t.fields.includes(x.key)))
      expect([t.name, f.key, freqs({ ...valid(t.name), [f.key]: other(f) })]).toEqual([t.name, f.key, base]);
  }
});

test('each number key changes the frequencies of a type that reads it (alone, or with its partner)', () => {
  const partner = { mscale: { mscale_all_dim: 1 }, mscale_all_dim: { mscale: 2 } };
  for (const f of numbers) {
    const readers = ROPE_TYPE_INFO.filter((t) => t.fields.includes(f.key));
    expect([f.key, readers.length > 0]).toEqual([f.key, true]);
    const changed = readers.some((t) => {
      const with_ = { ...valid(t.name), ...partner[f.key] };
      return JSON.stringify(freqs(with_)) !== JSON.stringify(freqs({ ...with_, [f.key]: other(f) }));
    });
    expect([f.key, changed]).toEqual([f.key, true]);
  }
});

test('HF\'s default is what a key left out means', () => {
  for (const f of SCALING_FIELDS.filter((x) => x.hfDefault !== null)) {
    for (const t of ROPE_TYPE_INFO.filter((x) => x.fields.includes(f.key))) {
      const out = valid(t.name);
      delete out[f.key];
      const value = f.kind === 'flag' ? Boolean(f.hfDefault) : f.hfDefault;
      expect([t.name, f.key, freqs({ ...out, [f.key]: value })]).toEqual([t.name, f.key, freqs(out)]);
    }
  }
});

test('the table\'s bounds are the core\'s: its ends are accepted (or refused when exclusive), past them is a RangeError', () => {
  const at = (f, x) => {
    const t = ROPE_TYPE_INFO.find((r) => r.fields.includes(f.key)).name;
    const value = f.kind === 'factors' ? Array(DIM / 2).fill(x) : x;
    return () => freqs({ ...valid(t), mscale_all_dim: f.key === 'mscale' ? 1 : undefined, [f.key]: value });
  };
  for (const f of SCALING_FIELDS.filter((x) => x.kind === 'number' || x.kind === 'factors')) {
    if (f.minExclusive) expect(at(f, f.min)).toThrow(new RegExp(f.key));
    else expect(at(f, f.min)).not.toThrow();
    expect(at(f, f.min - 0.5)).toThrow(RangeError);
    if (Number.isFinite(f.max)) {
      expect(at(f, f.max)).not.toThrow();
      expect(at(f, f.max + 0.5)).toThrow(new RegExp(f.key));
    }
  }
});

test('the page offers the table\'s page types, with its sliders, labels and scaling blocks', () => {
  expect(ROPE_SCALINGS).toEqual(['none', ...ROPE_TYPE_INFO.filter((t) => t.page).map((t) => t.name)]);
  for (const f of SCALING_FIELDS.filter((x) => x.page))
    expect(SCHEMA[f.page.key]).toEqual({ type: 'num', def: f.page.default, min: f.page.min, max: f.page.max });
  for (const t of ROPE_TYPE_INFO) expect(SCALING_NAMES[t.name]).toBe(t.label);
  // What the page's state gives, for the trained length 32 (the context reaches each type through one key).
  const s = { factor: 4, betaFast: 16, betaSlow: 2, lowFreq: 1, highFreq: 4, trainLength: 32 };
  expect(ROPE_SCALINGS.map((ropeScaling) => scalingObject({ ...s, ropeScaling }))).toEqual([null,
    { rope_type: 'linear', factor: 4 },
    { rope_type: 'dynamic', factor: 4, max_position_embeddings: 32 },
    { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 32, beta_fast: 16, beta_slow: 2 },
    { rope_type: 'llama3', factor: 4, original_max_position_embeddings: 32, low_freq_factor: 1, high_freq_factor: 4 }]);
  expect(scalingBlock('llama3', { factor: 8 })).toEqual({ rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4 });
  expect(() => scalingBlock('ntk', {})).toThrow(/type must be one of 'none', 'default', 'linear'/);
});

// The explorer's declared union and slider ranges, as written in types/explorer.d.ts.
export function explorerDeclarations(text = readFileSync(`${root}types/explorer.d.ts`, 'utf8')) {
  const union = text.match(/export type ExplorerRopeScaling = ([^;]+);/)[1].split('|').map((s) => s.trim().replace(/'/g, ''));
  const sliders = Object.fromEntries([...text.matchAll(/\/\*\* `[a-z-]+`[^,]*, \[([\d.]+), ([\d.]+)\]\. @default ([\d.]+) \*\/\n\s+(\w+): number;/g)]
    .map(([, min, max, def, key]) => [key, { default: Number(def), min: Number(min), max: Number(max) }]));
  return { union, sliders };
}

test('the explorer\'s declarations state the page\'s scalings and slider ranges', () => {
  const { union, sliders } = explorerDeclarations();
  expect(union).toEqual(ROPE_SCALINGS);
  for (const f of SCALING_FIELDS.filter((x) => x.page)) expect([f.page.key, sliders[f.page.key]]).toEqual([f.page.key, { default: f.page.default, min: f.page.min, max: f.page.max }]);
});

test('mutation: a declaration that drops a scaling or moves a slider\'s end fails the check', () => {
  const text = readFileSync(`${root}types/explorer.d.ts`, 'utf8');
  expect(explorerDeclarations(text.replace(" | 'llama3';", ';')).union).not.toEqual(ROPE_SCALINGS);
  expect(explorerDeclarations(text.replace('[1, 64]. @default 32', '[1, 48]. @default 32')).sliders.betaFast.max).not.toBe(
    SCALING_FIELDS.find((f) => f.key === 'beta_fast').page.max);
});

// Lines naming three or more rope_types as quoted strings: a list kept by hand.
export function restatedLists(files) {
  const found = [];
  for (const [f, text] of files) {
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      // Another kind: the sweep's length-extension methods (they name 'ntk', which no rope_type is), or a paper's
      // compared set (the line after a "paper-set" comment).
      if (/another kind than rope_types|paper-set/.test(lines[i - 1] ?? '') || /['"`]ntk['"`]/.test(line)) return;
      const named = ROPE_TYPES.filter((t) => t !== 'default' && new RegExp(`['"\`]${t}['"\`]`).test(line));
      if (named.length >= 3) found.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

test('no source file outside the core\'s table restates the list of rope_types', () => {
  const files = execFileSync('git', ['ls-files', 'web', 'cpp', 'scripts', 'bench'], { cwd: root }).toString().split('\n')
    .filter((f) => /\.(js|mjs|cpp|hpp)$/.test(f) && f !== 'cpp/src/rope_scaling.cpp')
    .map((f) => [f, readFileSync(root + f, 'utf8')]);
  expect(restatedLists(files)).toEqual([]);
  // and the check sees one: the list lm.js once kept
  expect(restatedLists([['x.js', "if (['yarn', 'llama3', 'longrope'].includes(type))"]])).toHaveLength(1);
});

// The per-type code the columns cannot hold (HF's PyTorch formula, llama.cpp's GGUF keys) is one reader's rows, keyed by
// the table's types; rope-config.js and rope-export.js branch on no type by name.
export function typeCodeDrift(code = TYPE_CODE, info = ROPE_TYPE_INFO) {
  const out = [];
  if (JSON.stringify(Object.keys(code)) !== JSON.stringify(info.map((t) => t.name))) out.push(`rows ${Object.keys(code)} vs types ${info.map((t) => t.name)}`);
  for (const t of info) {
    const c = code[t.name] ?? {};
    if (typeof c.pytorch !== 'function') out.push(`${t.name}: no pytorch`);
    // llama.cpp spells it: its GGUF keys are read ('none' has none); llama.cpp has no spelling: nothing reads GGUF for it
    if (Boolean(t.gguf && t.gguf !== 'none') !== (typeof c.fromGguf === 'function')) out.push(`${t.name}: fromGguf vs gguf '${t.gguf}'`);
  }
  return out;
}

test('the per-type code has one row per type of the table, with a GGUF reader exactly where llama.cpp spells the type', () => {
  expect(typeCodeDrift()).toEqual([]);
  // mutations: a type the table lacks, a type missing, a GGUF spelling without its reader
  expect(typeCodeDrift({ ...TYPE_CODE, ntk_by_parts: { pytorch: () => [] } })).toHaveLength(1);
  const { llama3, ...without } = TYPE_CODE;
  expect(typeCodeDrift(without).length).toBeGreaterThan(0);
  expect(typeCodeDrift(TYPE_CODE, ROPE_TYPE_INFO.map((t) => (t.name === 'llama3' ? { ...t, gguf: 'llama3' } : t)))).toEqual(["llama3: fromGguf vs gguf 'llama3'"]);
});

test('the table\'s context column is the last key a type reads that HF fills from the context', () => {
  const rule = (t) => t.fields.findLast((k) => SCALING_FIELDS.find((f) => f.key === k).fromContext) ?? '';
  expect(Object.fromEntries(ROPE_TYPE_INFO.map((t) => [t.name, t.context]))).toEqual(Object.fromEntries(ROPE_TYPE_INFO.map((t) => [t.name, rule(t)])));
  expect(contextKey('yarn')).toBe('original_max_position_embeddings');
  expect(contextKey('dynamic')).toBe('max_position_embeddings');
  expect(contextKey('linear')).toBe(null);
});

// Lines of a file that branch on a rope_type by name ("rt === 'yarn'", "case 'linear':", 'v->s == "yarn"').
export function typeBranches(text, names = ROPE_TYPES.filter((t) => t !== 'default')) {
  const re = new RegExp(`([=!]==?\\s*['"\`](${names.join('|')})['"\`])|(case\\s+['"\`](${names.join('|')})['"\`])|(parse_rope_type\\("(${names.join('|')})"\\))`);
  return text.split('\n').map((l, i) => [i + 1, l]).filter(([, l]) => re.test(l) && !/^\s*(\/\/|\*)/.test(l)).map(([i, l]) => `${i}: ${l.trim()}`);
}

test('the GGUF reading, the PyTorch export and the sweep branch on no rope_type by name', () => {
  for (const f of ['web/lib/rope-config.js', 'web/lib/rope-export.js'])
    expect([f, typeBranches(readFileSync(root + f, 'utf8'))]).toEqual([f, []]);
  // the sweep's methods name their rope types in their table's rows only, never in a switch
  const sweep = readFileSync(`${root}cpp/src/tasks/sweep.cpp`, 'utf8');
  expect(typeBranches(sweep)).toEqual([]);
  expect(sweep).not.toMatch(/case SweepScaling::/);
  // and the check sees the branches that were there
  expect(typeBranches("  if (rt === 'linear') L.push(x);\n  } else if (type === 'longrope') {")).toHaveLength(2);
  expect(typeBranches('      r.type = parse_rope_type("linear");')).toHaveLength(1);
});
