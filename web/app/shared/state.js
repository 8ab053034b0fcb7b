// All UI state in one place, serialised to the URL (as TensorFlow
// Playground's state.ts does). Every key has a type, a default and an allowed
// range or set; anything else in the URL is ignored and a bad value falls back
// to its default, so a pasted link can never break the page.
import { ENCODINGS, TASKS, ROPE_TYPE_INFO, SCALING_FIELDS } from '../../lib/index.js';
import { SHIPPED_IDS } from '../../configs/index.js';
import { EXPERIMENT } from './experiment.js';
import CHECKPOINTS from '../../checkpoints/index.js';

// The rows a page shows unless its link names others: the encodings with shipped checkpoints. A registry row with
// none yet (a new encoding before its runs are shipped) is one a reader adds by name, since it trains in the page.
const SHIPPED_ENCODINGS = ENCODINGS.filter((e) => Object.keys(CHECKPOINTS).some((f) => f.endsWith(`-${e}.ckpt`)));

// The RoPE scalings the page offers and their sliders, from the core's table.
export const ROPE_SCALINGS = ['none', ...ROPE_TYPE_INFO.filter((t) => t.page).map((t) => t.name)];

const int = (def, min, max) => ({ type: 'int', def, min, max });
const num = (def, min, max) => ({ type: 'num', def, min, max });
const oneOf = (def, values) => ({ type: 'enum', def, values });
const flag = (def) => ({ type: 'bool', def });
const subset = (def, values) => ({ type: 'set', def, values });
// Up to `max` web addresses (https, or a path on the page's own origin), space-separated in the URL. A local file is
// never one: it cannot be named in a link.
const urls = (max) => ({ type: 'urls', def: [], max });

export const SCHEMA = {
  // experiment
  task: oneOf('copy', TASKS),
  seed: int(1, 0, 999999),
  trainLength: oneOf(32, [16, 32, 64, 128]),
  layers: int(3, 1, 4), // 3, 4, 32: the shipped checkpoints' shape (tests/js/experiment-config.test.js)
  heads: oneOf(4, [1, 2, 4, 8]),
  dModel: oneOf(32, [32, 64, 128]), // 32: the shipped checkpoints' width
  // the training budget (the cosine schedule spans it; training stops early at the held-out target),
  // by default the experiment's, as `npm run train` (index.html's steps input has max 5000 too)
  steps: int(EXPERIMENT.steps, 20, Math.max(5000, EXPERIMENT.steps)),
  // sweep
  encodings: subset(SHIPPED_ENCODINGS, ENCODINGS),
  // the first screen: the encodings whose attention is shown beside the hero figure (at most 4, among the rows),
  // and the narrative's step (1-based; 0: none chosen)
  // (empty: chosen from the data, story.js contrastPicks)
  picks: { type: 'set', def: [], values: ENCODINGS },
  step: int(0, 0, 9),
  sweepFactor: oneOf(16, [2, 4, 8, 16]), // the sweep ends at trainLength x sweepFactor
  length: int(32, 4, 2048),
  // Layers and heads are numbered as the page writes them, from 1, in the UI, the URL, the element's attributes
  // and the embed snippets alike (viewLayerHead gives the 0-based view). layer 0: "auto", each model's own layer
  // and head that best mark the correct key (sweep-core.js pickView); head 0: all heads as small multiples.
  layer: int(0, 0, 4),
  head: int(0, 0, 8),
  speed: oneOf(1, [0.25, 0.5, 1, 2, 4]),
  play: flag(true),
  // RoPE scaling (applied to the trained RoPE model and drawn in the spectrum)
  ropeScaling: oneOf('none', ROPE_SCALINGS),
  ...Object.fromEntries(SCALING_FIELDS.filter((f) => f.page).map(({ page: p }) => [p.key, num(p.default, p.min, p.max)])),
  // encoding views
  sinDim: int(64, 8, 256),
  sinLength: int(128, 16, 512),
  ropePos: int(10, 0, 2048),
  alibiHeads: int(8, 1, 16),
  // "Your model's RoPE": a shipped config (or 'pasted': the pasted text is not put in the URL) and the layer type shown
  ropeModel: oneOf('llama-3.1-8b', [...SHIPPED_IDS, 'pasted']),
  ropeLayerType: int(0, 0, 7),
  // "Your model, past its context": the model's file addresses (empty: none loaded, or a local file), the scaling
  // whose attention is shown, the factor every scaling uses, the length as a multiple of the original context, the
  // original context when the reader corrects it, or confirms one the file flags as its converter's default (0: the
  // file's), the layer whose heads are drawn (1-based)
  modelUrl: urls(4),
  lmScaling: oneOf('yarn', ROPE_SCALINGS),
  lmFactor: num(4, 1, 32),
  lmTimes: oneOf(4, [1, 2, 3, 4, 5, 6, 7, 8]),
  lmContext: int(0, 0, 131072),
  lmLayer: int(1, 1, 128),
  // lost in the middle: the input length of the depth lines (0: the longest measured)
  retrievalLength: int(0, 0, 2048),
  // page
  theme: oneOf('auto', ['auto', 'light', 'dark']),
  perf: flag(false),
};

function parse(spec, raw) {
  if (raw === null) return spec.def;
  switch (spec.type) {
    case 'int': {
      const n = Number(raw);
      return raw.trim() !== '' && Number.isInteger(n) && n >= spec.min && n <= spec.max ? n : spec.def;
    }
    case 'num': {
      const n = Number(raw);
      return raw.trim() !== '' && Number.isFinite(n) && n >= spec.min && n <= spec.max ? n : spec.def;
    }
    case 'enum': {
      const hit = spec.values.find((v) => String(v) === raw);
      return hit === undefined ? spec.def : hit;
    }
    case 'bool':
      return raw === '1' || raw === 'true' ? true : raw === '0' || raw === 'false' ? false : spec.def;
    case 'set': { // in the order given (rows are drawn in this order), without repeats
      const parts = [...new Set(raw.split(',').filter((p) => spec.values.includes(p)))];
      return parts.length ? parts : [...spec.def];
    }
    case 'urls': {
      const parts = raw.trim().split(/\s+/).filter(Boolean);
      return parts.length <= spec.max && parts.every(isModelUrl) ? parts : [...spec.def];
    }
    default:
      return spec.def;
  }
}

/** A model file's address the page may fetch: https (any host the page's CSP allows), or a path on its own origin. */
export function isModelUrl(u) {
  if (typeof u !== 'string' || u.length > 2000) return false;
  if (u.startsWith('/')) return /^\/[\w.~%/-]*$/.test(u) && !u.startsWith('//');
  try {
    const url = new URL(u);
    return url.protocol === 'https:' && !url.username && !url.password;
  } catch {
    return false;
  }
}

function format(spec, value) {
  if (spec.type === 'bool') return value ? '1' : '0';
  if (spec.type === 'set') return value.join(',');
  if (spec.type === 'urls') return value.join(' ');
  return String(value);
}

const same = (spec, a, b) => format(spec, a) === format(spec, b);

/** Validate one key's value (from a control) against its schema; returns the value or the default. */
export function coerce(key, value) {
  const spec = Object.hasOwn(SCHEMA, key) ? SCHEMA[key] : null; // not 'toString' or '__proto__'
  if (!spec) throw new RangeError(`unknown state key ${String(key)}`);
  if (spec.type === 'set') return parse(spec, [].concat(value).join(','));
  if (spec.type === 'urls') return parse(spec, [].concat(value).join(' '));
  // A boolean from a checkbox; anything else is parsed as the URL would be ('false' is false).
  return parse(spec, spec.type === 'bool' && typeof value === 'boolean' ? format(spec, value) : String(value));
}

// The picks that are rows (at most 4); none: chosen from the data.
const picksAmong = (picks, encodings) => picks.filter((e) => encodings.includes(e)).slice(0, 4);

/** Cross-field constraints: layer and length must fit the model and the sweep. */
export function fixUp(state) {
  if (state.layer > state.layers) state.layer = state.layers;
  if (state.head > state.heads) state.head = 0;
  state.picks = picksAmong(state.picks, state.encodings);
  const max = state.trainLength * state.sweepFactor;
  state.length = Math.min(Math.max(state.length, 4), max);
  return state;
}

/** What a key accepts, in words (for messages about rejected values). */
export function allowed(key) {
  const spec = SCHEMA[key];
  switch (spec.type) {
    case 'int': return `an integer from ${spec.min} to ${spec.max}`;
    case 'num': return `a number from ${spec.min} to ${spec.max}`;
    case 'enum': return `one of ${spec.values.join(', ')}`;
    case 'bool': return '1, 0, true or false';
    case 'urls': return `up to ${spec.max} space-separated https addresses`;
    default: return `a comma-separated list of ${spec.values.join(', ')}`;
  }
}

/** Messages for the values in `search` that were not accepted (and so fell back to their defaults). */
export function rejected(search) {
  const out = [];
  for (const [key, raw] of new URLSearchParams(search)) {
    const spec = SCHEMA[key];
    if (!spec) continue;
    const v = parse(spec, raw);
    const ok = spec.type === 'urls' ? format(spec, v) === raw.trim().split(/\s+/).filter(Boolean).join(' ') : spec.type === 'set' ? raw.split(',').every((p) => spec.values.includes(p)) : format(spec, v) === String(raw) ||
      (spec.type !== 'enum' && spec.type !== 'bool' && Number(raw) === v);
    if (!ok) out.push(`${key}: ${JSON.stringify(raw.slice(0, 40))} is not ${allowed(key)}; using ${format(spec, v)}`);
  }
  return out;
}

export function readState(search = location.search) {
  const params = new URLSearchParams(search);
  const state = {};
  for (const [key, spec] of Object.entries(SCHEMA)) state[key] = parse(spec, params.get(key));
  if (!params.has('length')) state.length = state.trainLength;
  return fixUp(state);
}

export function toSearch(state) {
  const params = new URLSearchParams();
  for (const [key, spec] of Object.entries(SCHEMA)) {
    // the sweep starts at the training length; the default picks are those among the rows
    const def = key === 'length' ? state.trainLength : key === 'picks' ? picksAmong(spec.def, state.encodings) : spec.def;
    if (!same(spec, state[key], def)) params.set(key, format(spec, state[key]));
  }
  const qs = params.toString();
  return qs ? `?${qs}` : '';
}

export function writeState(state) {
  const qs = toSearch(state);
  if (qs !== location.search) history.replaceState(null, '', qs || location.pathname);
}

export const schema = SCHEMA;

/** The 0-based view of the state's layer and head: {layer: -1 (auto) | 0.., head: -1 (all heads) | 0..}. */
export const viewLayerHead = (s) => ({ layer: s.layer - 1, head: s.layer === 0 ? -1 : s.head - 1 });

/** A state key as an HTML attribute name: trainLength -> train-length (<posenc-explorer>, embed.html). */
export const kebab = (key) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
