// A pasted config.json is hostile until proven otherwise. `plainJson` takes
// JSON text or an object and returns a deep copy made only of plain data
// (null-prototype objects, arrays, strings, finite numbers, booleans, null),
// walking iteratively with limits on size, depth, array length and node count,
// so a huge or deeply nested paste is refused quickly with a message, never a
// hang or a stack overflow. `__proto__` keys are refused (they would change an
// object's prototype on a later spread or assignment elsewhere).
import { show } from './validate.js';

export const JSON_LIMITS = Object.freeze({ chars: 4_000_000, depth: 32, nodes: 200_000, arrayLength: 65_536 });

const pathOf = (path) => path || 'config';

export function plainJson(input, name = 'config', limits = JSON_LIMITS) {
  let root = input;
  if (typeof input === 'string') {
    if (input.length > limits.chars)
      throw new RangeError(`${name} must be JSON text of at most ${limits.chars} characters (got ${input.length})`);
    try {
      root = JSON.parse(input);
    } catch (e) {
      // one line: the engine quotes the text around the error, newlines and all
      throw new RangeError(`${name} is not valid JSON: ${String(e?.message ?? e).replace(/\s+/g, " ").slice(0, 200)}`);
    }
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root))
    throw new TypeError(`${name} must be a JSON object such as the contents of config.json (got ${show(root)})`);
  let nodes = 0;
  const out = Object.create(null);
  // Each task copies one source container into its (already created) copy.
  const stack = [{ src: root, dst: out, path: '', depth: 1 }];
  while (stack.length) {
    const { src, dst, path, depth } = stack.pop();
    if (depth > limits.depth) throw new RangeError(`${name} nests deeper than ${limits.depth} levels (at ${pathOf(path)})`);
    let keys;
    try {
      if (Array.isArray(src)) {
        if (src.length > limits.arrayLength)
          throw new RangeError(`${name}: ${pathOf(path)} must have at most ${limits.arrayLength} entries (got ${src.length})`);
        keys = null;
      } else {
        if (Object.getPrototypeOf(src) !== Object.prototype && Object.getPrototypeOf(src) !== null)
          throw new TypeError(`${name}: ${pathOf(path)} must be plain JSON data (got ${show(src)})`);
        keys = Object.keys(src);
      }
    } catch (e) {
      if (e instanceof RangeError || e instanceof TypeError) throw e;
      throw new TypeError(`${name}: ${pathOf(path)} could not be read as JSON data`);
    }
    const n = keys ? keys.length : src.length;
    nodes += n;
    if (nodes > limits.nodes) throw new RangeError(`${name} has more than ${limits.nodes} values; a config.json has far fewer`);
    for (let i = 0; i < n; i++) {
      const k = keys ? keys[i] : i;
      if (k === '__proto__') throw new RangeError(`${name}: the key "__proto__" (in ${pathOf(path)}) is not allowed`);
      const sub = keys ? (path ? `${path}.${k}` : k) : `${pathOf(path)}[${k}]`;
      let value;
      try {
        value = src[k];
      } catch {
        throw new TypeError(`${name}: ${sub} could not be read as JSON data`);
      }
      if (value === null || typeof value === 'string' || typeof value === 'boolean') dst[k] = value;
      else if (typeof value === 'number') {
        if (!Number.isFinite(value)) throw new RangeError(`${name}: ${sub} must be a finite number (got ${value})`);
        dst[k] = value;
      } else if (typeof value === 'object') {
        const child = Array.isArray(value) ? [] : Object.create(null);
        dst[k] = child;
        stack.push({ src: value, dst: child, path: sub, depth: depth + 1 });
      } else throw new TypeError(`${name}: ${sub} must be JSON data (got ${typeof value})`);
    }
  }
  return out;
}
