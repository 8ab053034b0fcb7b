// Our module for the benchmark, in Node and in the browser: compiled once
// per build (so every instance shares the tiered-up code), instantiated
// fresh whenever a measurement needs its own memory (the length sweep's peak
// memory). Each instance exposes the raw embind functions (`mod`, for kernels
// on data already in wasm memory) and the public API built on that same
// instance (`api`: createModel, applyRope, attention, ...).
import { createEncodings } from '../../web/lib/encodings.js';
import { createModelApi } from '../../web/lib/model.js';
import { createTaskApi } from '../../web/lib/tasks.js';

/**
 * @param {'simd'|'scalar'} flavour
 * @param {{read: (file: string) => Promise<ArrayBuffer|Uint8Array>, glue?: (file: string) => Promise<object>}} wasm
 *   the .wasm bytes of a build, and its Emscripten glue module (default: web/wasm/)
 */
export async function compileOurs(flavour, { read, glue = (file) => import(`../../web/wasm/${file}`) }) {
  const { default: create } = await glue(`posenc-${flavour}.mjs`);
  const compiled = await WebAssembly.compile(await read(`posenc-${flavour}.wasm`));
  return {
    flavour,
    async instance() {
      const mod = await create({
        print: () => {},
        printErr: (s) => console.warn(`posenc: ${s}`),
        instantiateWasm(imports, done) {
          WebAssembly.instantiate(compiled, imports).then((inst) => done(inst, compiled));
          return {};
        },
      });
      return {
        mod,
        api: { ...createEncodings(mod), ...createModelApi(mod), ...createTaskApi(mod) },
        memoryBytes: () => mod.HEAPU8.length,
        heapPeakBytes: () => mod.heapPeakBytes(),
      };
    },
  };
}

/** Float32 buffers in wasm memory for the raw kernels: put(data) / alloc(n) -> address; read(p, n); free(). */
export function wasmBuffers(mod) {
  const owned = [];
  const alloc = (n, bytes = 4) => {
    const p = mod._malloc(Math.max(1, n) * bytes);
    if (!p) throw new RangeError(`could not allocate ${n} values in the wasm heap`);
    owned.push(p);
    return p;
  };
  return {
    alloc,
    put(data) {
      const p = alloc(data.length, data.BYTES_PER_ELEMENT);
      const view = data instanceof Float64Array ? mod.HEAPF64 : data instanceof Int32Array ? mod.HEAP32 : mod.HEAPF32;
      view.set(data, p / data.BYTES_PER_ELEMENT);
      return p;
    },
    read: (p, n) => mod.HEAPF32.slice(p / 4, p / 4 + n),
    free() {
      owned.splice(0).forEach((p) => mod._free(p));
    },
  };
}
