// Every URL parameter of the explorer (web/app/shared/state.js) against hostile
// values: each key, one at a time, with markup, script URLs, template
// syntax, NaN, 1e309, out-of-range and fractional numbers, unknown enum
// values, huge strings and prototype names. A bad value gives exactly the
// page's defaults; good values round-trip; no input adds keys or touches
// Object.prototype.
import { readState, toSearch, coerce, fixUp, isModelUrl, SCHEMA } from '../../web/app/shared/state.js';
import { mulberry32 } from './reference.js';

const DEFAULTS = readState('');
const KEYS = Object.keys(SCHEMA);
const q = (params) => `?${new URLSearchParams(params)}`;

const MARKUP = [
  '<script>alert(1)</script>', '"><img src=x onerror="window.__pwned=1">', "'><svg onload=alert(1)>", 'javascript:alert(1)',
  '${alert(1)}', '{{7*7}}', '<!--', ']]>', '\u0000', '%00', '\u202e', '&#60;script&#62;', '__proto__', 'constructor', 'toString',
  'hasOwnProperty', 'null', 'undefined', '[object Object]', 'A'.repeat(100_000), '', ' ', '\n', 'NaN', 'Infinity', '-Infinity',
  '1e309', '-1e309', '9'.repeat(400), '1;1', '1 1', 'true,false', ',,,',
];
// Values of the right kind but outside the key's range or set.
function outOfRange(spec) {
  switch (spec.type) {
    case 'int': return [spec.min - 1, spec.max + 1, spec.min + 0.5, -(2 ** 53), 2 ** 53, 1e21].map(String);
    case 'num': return [spec.min - 1e-9, spec.max * 2 + 1, -spec.max - 1, 1e308 * 10].map(String);
    case 'enum': return spec.values.flatMap((v) => [`${v}x`, `x${v}`, String(v).toUpperCase() === String(v) ? `${v}0` : String(v).toUpperCase(), ` ${v}`, `${v},${v}`]);
    case 'bool': return ['yes', 'no', '2', '-1', 'TRUE', 'False', 'on'];
    case 'set': return ['rotary', 'ROPE', 'rope ', 'nope,also-not'];
    case 'urls': return ['http://example.com/a.gguf', '//evil.example/x.gguf', 'https://u:p@evil.example/a.bin', 'file:///etc/passwd',
      'data:text/plain,1', 'blob:https://x.example/1', '/a"b', '/<svg>', 'https://a.example/1 https://a.example/2 /3 /4 /5'];
    default: return [];
  }
}

test.each(KEYS)('%s: every hostile or out-of-range value gives the defaults', (key) => {
  for (const value of [...MARKUP, ...outOfRange(SCHEMA[key])]) {
    const state = readState(q({ [key]: value }));
    if (JSON.stringify(state) !== JSON.stringify(DEFAULTS))
      throw new Error(`${key}=${JSON.stringify(value.slice(0, 60))} gave ${JSON.stringify(state[key])}, not the default ${JSON.stringify(DEFAULTS[key])}`);
    expect(coerce(key, value)).toEqual(SCHEMA[key].def);
  }
});

test.each(KEYS)('%s: every allowed boundary value is kept and round-trips through the URL', (key) => {
  const spec = SCHEMA[key];
  const good = { int: [spec.min, spec.max], num: [spec.min, spec.max, (spec.min + spec.max) / 2], enum: spec.values, bool: [true, false],
    set: [spec.values?.slice(0, 1), spec.values?.slice(-2), spec.values],
    urls: [[], ['https://huggingface.co/karpathy/tinyllamas/resolve/main/stories260K/stories260K.bin'],
      ['https://huggingface.co/a/b/resolve/main/m.bin', 'https://huggingface.co/a/b/resolve/main/tok%20512.bin', '/models/x.gguf', '/y']] }[spec.type];
  for (const value of good) {
    // Cross-field constraints (layer < layers, head < heads, length within the sweep) take the largest setting.
    const base = { layers: 4, heads: 8, trainLength: 128, sweepFactor: 16 };
    const state = readState(q({ ...base, [key]: spec.type === 'set' ? value.join(',') : spec.type === 'urls' ? value.join(' ') : String(value) }));
    expect(state[key]).toEqual(key in base && key !== 'length' ? value : fixUp({ ...state, [key]: value })[key]);
    expect(readState(toSearch(state))).toEqual(state);
  }
});

test('random strings for every key at once: the state always satisfies the schema and round-trips', () => {
  const rnd = mulberry32(8);
  const alphabet = '0123456789.-+eE,xX <>"\'/=&;%#?rope alibi none t5 copy true false NaN Infinity';
  const word = () => Array.from({ length: Math.floor(rnd() * 12) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
  for (let i = 0; i < 2000; i++) {
    const params = Object.fromEntries(KEYS.filter(() => rnd() < 0.5).map((k) => [k, word()]));
    const state = readState(q(params));
    expect(Object.keys(state).sort()).toEqual([...KEYS].sort());
    for (const [key, spec] of Object.entries(SCHEMA)) {
      const v = state[key];
      const ok = {
        int: () => Number.isInteger(v) && v >= spec.min && v <= spec.max,
        num: () => Number.isFinite(v) && v >= spec.min && v <= spec.max,
        enum: () => spec.values.includes(v),
        bool: () => typeof v === 'boolean',
        set: () => Array.isArray(v) && (v.length > 0 || spec.def.length === 0) && v.every((x) => spec.values.includes(x)) && new Set(v).size === v.length,
        urls: () => Array.isArray(v) && v.length <= spec.max && v.every(isModelUrl),
      }[spec.type]();
      if (!ok) throw new Error(`${q(params)} gave ${key} = ${JSON.stringify(v)}`);
    }
    expect(state.layer).toBeLessThanOrEqual(state.layers); // numbered from 1; 0: auto
    expect(state.head).toBeLessThanOrEqual(state.heads); // numbered from 1; 0: all heads
    expect(state.length).toBeLessThanOrEqual(state.trainLength * state.sweepFactor);
    expect(readState(toSearch(state))).toEqual(state);
  }
});

test('a list keeps only its known members, in the order given, without repeats', () => {
  expect(readState('?encodings=rope,%3Cimg%20src%3Dx%3E,alibi,rope,__proto__').encodings).toEqual(['rope', 'alibi']);
  expect(coerce('encodings', ['shaw', '<svg onload=alert(1)>', 'none'])).toEqual(['shaw', 'none']);
});

test('prototype names and unknown keys add nothing and pollute nothing', () => {
  const state = readState('?__proto__=1&__proto__[polluted]=1&constructor=x&prototype=y&toString=z&unknown=1&seed=7');
  expect(Object.keys(state).sort()).toEqual([...KEYS].sort());
  expect(state.seed).toBe(7);
  expect({}.polluted).toBeUndefined();
  expect(Object.prototype.toString.call({})).toBe('[object Object]');
  expect(() => coerce('__proto__', 1)).toThrow(RangeError);
  expect(() => coerce('unknown', 1)).toThrow(RangeError);
});

// The views never build markup from state or URL strings: every innerHTML /
// outerHTML template in the page and the component interpolates only the
// constant tables NAMES / BLURBS (an unknown key gives 'undefined', never
// markup) or `enc` while looping over the constant ENCODINGS.
test('no view writes state- or URL-derived strings as HTML', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const root = new URL('../../web/', import.meta.url);
  const files = ['app', 'component'].flatMap((dir) =>
    readdirSync(new URL(dir, root), { recursive: true }).filter((f) => f.endsWith('.js')).map((f) => new URL(`${dir}/${f}`, root)));
  const interpolated = [];
  for (const file of files) {
    const src = readFileSync(file, 'utf8');
    expect(src).not.toMatch(/insertAdjacentHTML|document\.write|srcdoc|createContextualFragment|DOMParser/);
    for (const m of src.matchAll(/\.(?:inner|outer)HTML\s*=\s*(`[^`]*`|'[^']*'(?:\s*\+\s*'[^']*')*)/g)) {
      for (const [, expr] of m[1].matchAll(/\$\{([^}]*)\}/g)) {
        const name = file.pathname.split('/web/')[1];
        interpolated.push(`${name}: ${expr}`);
        const ok = /^(NAMES|BLURBS)\[enc\]$/.test(expr) ||
          (expr === 'enc' && /for \(const enc of ENCODINGS\) \{[^]*?innerHTML = `[^`]*\$\{enc\}/.test(src));
        if (!ok) throw new Error(`${name} writes \${${expr}} into HTML`);
      }
    }
  }
  expect(interpolated.length).toBeGreaterThan(0); // the scan found the templates it is meant to check
});
