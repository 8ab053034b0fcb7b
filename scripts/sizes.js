// Bytes of what the npm package ships, raw and gzip (-9): node scripts/sizes.js
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const groups = {
  'wasm SIMD (posenc-simd.wasm)': ['web/wasm/posenc-simd.wasm'],
  'wasm scalar (posenc-scalar.wasm)': ['web/wasm/posenc-scalar.wasm'],
  'Emscripten glue (posenc-simd.mjs)': ['web/wasm/posenc-simd.mjs'],
  'JS library (web/lib/*.js)': readdirSync(`${root}web/lib`).filter((f) => f.endsWith('.js')).map((f) => `web/lib/${f}`),
};
const rows = Object.entries(groups).map(([what, files]) => {
  const bufs = files.filter((f) => existsSync(root + f)).map((f) => readFileSync(root + f));
  const raw = bufs.reduce((a, b) => a + b.length, 0);
  const gz = bufs.reduce((a, b) => a + gzipSync(b, { level: 9 }).length, 0);
  return { what, raw, gzip: gz };
});
console.table(rows);
