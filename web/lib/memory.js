// Moving whole typed arrays in and out of wasm memory.
//
// Every call runs inside `scope`: buffers it allocates are freed when the
// call ends, whether it returns or throws, so errors never leak. Views on
// wasm memory are re-created after the call, because ALLOW_MEMORY_GROWTH
// detaches every old view when the heap grows.

const VIEWS = { f32: 'HEAPF32', f64: 'HEAPF64', i32: 'HEAP32', u32: 'HEAPU32', u8: 'HEAPU8' };
const CTORS = { f32: Float32Array, f64: Float64Array, i32: Int32Array, u32: Uint32Array, u8: Uint8Array };

export function scope(mod, fn) {
  const owned = [];
  const alloc = (kind, count) => {
    const bytes = Math.max(1, count) * CTORS[kind].BYTES_PER_ELEMENT;
    const p = mod._malloc(bytes) >>> 0; // unsigned: a module of more than 2 GB gives addresses above 2^31
    if (!p) throw new RangeError(`out of memory: could not allocate ${bytes} bytes in the wasm heap`);
    owned.push(p);
    return p;
  };
  const api = {
    // Allocate `count` values of `kind`, optionally filled from `data`.
    put(kind, count, data) {
      // Never write past the block: callers pass validated snapshots, this keeps it so.
      if (data && data.length > count) throw new RangeError(`internal: ${data.length} values do not fit in ${count}`);
      const p = alloc(kind, count);
      if (data) mod[VIEWS[kind]].set(data, p / CTORS[kind].BYTES_PER_ELEMENT);
      return p;
    },
    // Copy `count` values of `kind` at `p` out into a new JS typed array.
    take(kind, p, count) {
      const start = p / CTORS[kind].BYTES_PER_ELEMENT;
      return mod[VIEWS[kind]].slice(start, start + count);
    },
  };
  try {
    return fn(api);
  } finally {
    for (const p of owned) mod._free(p);
  }
}

// Turn the embind layer's status code into the matching JS error.
export function check(mod, status) {
  if (status === 0) return;
  const message = mod.lastError();
  throw status === 1 ? new TypeError(message) : new RangeError(message);
}
