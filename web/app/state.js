// All UI state in one place, serialised to the URL (as TensorFlow
// Playground's state.ts does). Each key has a default and an allowed range;
// anything else in the URL is ignored, so a pasted link cannot break the page.
const SCHEMA = {
  sinDim: { def: 64, min: 8, max: 256 },
  sinLength: { def: 128, min: 16, max: 512 },
  ropePos: { def: 10, min: 0, max: 2048 },
  alibiHeads: { def: 8, min: 1, max: 16 },
};

export function readState(search = location.search) {
  const params = new URLSearchParams(search);
  const state = {};
  for (const [key, { def, min, max }] of Object.entries(SCHEMA)) {
    const raw = params.get(key);
    const n = raw === null ? NaN : Number(raw);
    state[key] = Number.isInteger(n) && n >= min && n <= max ? n : def;
  }
  return state;
}

export function writeState(state) {
  const params = new URLSearchParams();
  for (const [key, { def }] of Object.entries(SCHEMA)) if (state[key] !== def) params.set(key, String(state[key]));
  const qs = params.toString();
  history.replaceState(null, '', qs ? `?${qs}` : location.pathname);
}

export const schema = SCHEMA;
