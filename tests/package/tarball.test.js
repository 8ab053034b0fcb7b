// The package as a user gets it: `npm pack`, installed offline into a fresh
// project, then
//  - its contents (what ships, what must not, sizes printed for the release note);
//  - Node: `import 'posenc'` and `'posenc/single'` rotate by RoPE (both builds)
//    and match a float64 reference; 'posenc' runs a language model in its own module
//    (the numbers of this repository's library), 'posenc/single' refuses one by name;
//  - TypeScript: the `types` conditions of the exports map resolve (bundler and
//    node16 resolution) to declarations that are not `any`, with and without the DOM lib;
//  - Node: `require('posenc')` works on the Node versions `engines` admits, and importing
//    'posenc/explorer' (server-side rendering) throws nothing.
// Bundlers (webpack, esbuild, Rollup, Parcel, Vite 5 and 8): bundlers.test.js.
// dist/ comes from `npm run build` (scripts/setup.sh runs it before the tests);
// it is built here only when missing.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { root, CASES, expectRope, computeModule, expectedLm, run, packAndInstall } from './consumer.js';

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

let work, project, packed, pkg;
beforeAll(() => {
  ({ work, project, packed } = packAndInstall());
  pkg = JSON.parse(readFileSync(join(project, 'node_modules/posenc/package.json'), 'utf8'));
}, 240000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the tarball', () => {
  test('ships dist/ and nothing from the source tree; prints the contents with sizes', () => {
    const paths = packed.files.map((f) => f.path);
    const installed = join(project, 'node_modules/posenc');
    const rows = packed.files.map((f) => [f.path, f.size, gzipSync(readFileSync(join(installed, f.path))).length]);
    console.log([
      `${packed.filename}: ${packed.entryCount} files, ${kb(packed.size)} packed, ${kb(packed.unpackedSize)} unpacked`,
      ...rows.map(([p, raw, gz]) => `${p.padEnd(48)} ${String(raw).padStart(9)} B  ${String(gz).padStart(8)} B gzip`),
    ].join('\n'));

    for (const required of ['package.json', 'dist/posenc.js', 'dist/posenc.single.js', 'dist/posenc.d.ts', 'dist/explorer.js',
      'dist/explorer.d.ts', 'dist/embed.html', 'dist/standalone.html'])
      expect(paths).toContain(required);
    expect(paths.filter((p) => /^dist\/checkpoints\/.+\.ckpt$/.test(p)).length).toBeGreaterThan(0);
    expect(paths.filter((p) => /^dist\/(.+\/)?posenc-simd\.wasm$/.test(p))).toHaveLength(1);
    expect(paths.filter((p) => /^dist\/(.+\/)?posenc-scalar\.wasm$/.test(p))).toHaveLength(1);
    for (const build of ['simd', 'scalar']) expect(paths.filter((p) => new RegExp(`^dist/(.+/)?posenc-lm-${build}\\.wasm$`).test(p))).toHaveLength(1);
    // No sources, build trees, installed modules or tests.
    const stray = paths.filter((p) => /(^|\/)(node_modules|build|tests?|cpp|web)\//.test(p) || /\.(test\.js|cpp|hpp|o|a)$/.test(p));
    expect(stray).toEqual([]);
    // Source maps, if any, must not point into the tests.
    for (const map of paths.filter((p) => p.endsWith('.map'))) {
      const sources = JSON.parse(readFileSync(join(installed, map), 'utf8')).sources ?? [];
      expect(sources.filter((s) => /(^|\/)tests?\//.test(s))).toEqual([]);
    }
  });

  test('package.json: every export target ships, types conditions come first, no runtime dependencies', () => {
    const paths = new Set(packed.files.map((f) => f.path));
    const targets = [];
    for (const [key, value] of Object.entries(pkg.exports)) {
      if (typeof value === 'string') targets.push(value);
      else {
        expect([key, Object.keys(value)[0]]).toEqual([key, 'types']); // TypeScript reads conditions in order
        targets.push(...Object.values(value));
      }
    }
    // A subpath pattern (./checkpoints/*) must match shipped files; any other target must ship.
    const ships = (t) => (t.includes('*') ? [...paths].some((p) => p.startsWith(t.replace(/^\.\//, '').split('*')[0]))
      : paths.has(t.replace(/^\.\//, '')));
    for (const t of targets) expect([t, ships(t)]).toEqual([t, true]);
    for (const key of ['./sweep-worker.js', './train-worker.js', './checkpoints/*']) expect(Object.keys(pkg.exports)).toContain(key);
    for (const key of ['.', './single', './explorer', './posenc-simd.wasm', './posenc-scalar.wasm', './posenc-lm-simd.wasm', './posenc-lm-scalar.wasm',
      './package.json'])
      expect(Object.keys(pkg.exports)).toContain(key);
    expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
    expect(Object.keys(pkg.peerDependencies ?? {})).toEqual([]);
    expect(pkg.type).toBe('module');
  });
});

describe('in Node', () => {
  test("'posenc' and 'posenc/single' compute RoPE like a float64 reference, in both builds", () => {
    writeFileSync(join(project, 'rope-main.mjs'), computeModule('posenc'));
    writeFileSync(join(project, 'rope-single.mjs'), computeModule('posenc/single'));
    writeFileSync(join(project, 'node-run.mjs'), `import * as main from './rope-main.mjs';
import * as single from './rope-single.mjs';
const out = {};
for (const [name, m] of Object.entries({ main, single })) for (const build of ['simd', 'scalar']) out[name + ':' + build] = await m.compute(build);
out.wasm = import.meta.resolve('posenc/posenc-simd.wasm');
console.log(JSON.stringify(out));
`);
    const out = JSON.parse(run(process.execPath, ['node-run.mjs'], { cwd: project }));
    const worst = {};
    for (const key of ['main:simd', 'main:scalar', 'single:simd', 'single:scalar']) {
      expect(out[key].build).toBe(key.split(':')[1]);
      worst[key] = Math.max(...CASES.map((c, i) => expectRope(out[key].results[i], c)));
    }
    console.log(`Node: worst |error| against float64 per entry and build: ${JSON.stringify(worst)}`);
    // The .wasm export resolves to a file that ships.
    expect(existsSync(fileURLToPath(out.wasm))).toBe(true);
  });

  test("'posenc' runs a language model in its own module, both builds; 'posenc/single' refuses one, naming 'posenc'", async () => {
    writeFileSync(join(project, 'rope-main.mjs'), computeModule('posenc'));
    writeFileSync(join(project, 'rope-single.mjs'), computeModule('posenc/single'));
    writeFileSync(join(project, 'lm-run.mjs'), `import * as main from './rope-main.mjs';
import * as single from './rope-single.mjs';
const out = { simd: await main.lmCheck('simd'), scalar: await main.lmCheck('scalar') };
out.single = await single.lmCheck('simd').then(() => 'loaded', (e) => e.constructor.name + ': ' + e.message);
out.wasm = import.meta.resolve('posenc/posenc-lm-simd.wasm');
console.log(JSON.stringify(out));
`);
    const out = JSON.parse(run(process.execPath, ['lm-run.mjs'], { cwd: project }));
    for (const build of ['simd', 'scalar']) {
      const want = await expectedLm(build);
      expect([out[build].build, out[build].format]).toEqual([build, 'llama2c']);
      expect(out[build].nll.map((x, i) => Math.abs(x - want[i]) < 1e-6)).toEqual(want.map(() => true));
    }
    expect(out.single).toMatch(/^RangeError: loadLanguageModel: this one-file build of posenc has no language-model module.*from 'posenc'/);
    expect(existsSync(fileURLToPath(out.wasm))).toBe(true);
  });

  test('TypeScript resolves the declarations through the exports map (bundler and node16)', () => {
    writeFileSync(join(project, 'consumer.ts'), `import { loadPosenc, type RopeScaling } from 'posenc';
import { loadPosenc as loadSingle } from 'posenc/single';
import { PosencExplorer } from 'posenc/explorer';
const pe = await loadPosenc({ build: 'auto' });
const scaling: RopeScaling = { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4 };
const q: Float32Array = pe.applyRope(new Float32Array(8), { length: 1, dim: 8, scaling });
// @ts-expect-error the declarations are real (not any): rotary_dim is not an option
pe.applyRope(q, { length: 1, dim: 8, rotary_dim: 4 });
const el: PosencExplorer | null = document.querySelector('posenc-explorer');
console.log((await loadSingle()).build, el?.encodings);
`);
    const config = (module, moduleResolution) => ({
      compilerOptions: { target: 'es2022', module, moduleResolution, lib: ['dom', 'es2022'], types: [], strict: true, noEmit: true },
      files: ['consumer.ts'],
    });
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(config('esnext', 'bundler')));
    writeFileSync(join(project, 'tsconfig.node16.json'), JSON.stringify(config('node16', 'node16')));
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    for (const p of ['tsconfig.json', 'tsconfig.node16.json'])
      expect(run(process.execPath, [tsc, '-p', p, '--pretty', 'false'], { cwd: project }).trim()).toBe('');
  });

  test('the library declarations check in a Node-only project (no DOM lib, no @types/node)', () => {
    writeFileSync(join(project, 'node-only.ts'), `import { loadPosenc, compileWasm } from 'posenc';
const { module, build } = await compileWasm();
const pe = await loadPosenc({ wasmModule: module, build });
const table: Float32Array = pe.sinusoidal({ length: 4, dim: 8 });
// @ts-expect-error the declarations are real (not any): 'fast' is not a build
await loadPosenc({ build: 'fast' });
export { table };
`);
    writeFileSync(join(project, 'tsconfig.node-only.json'), JSON.stringify({
      compilerOptions: { target: 'es2022', module: 'node16', moduleResolution: 'node16', lib: ['es2022'], types: [], strict: true, noEmit: true },
      files: ['node-only.ts'],
    }));
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    expect(run(process.execPath, [tsc, '-p', 'tsconfig.node-only.json', '--pretty', 'false'], { cwd: project }).trim()).toBe('');
  });

  test("require('posenc') works on the Node versions engines admits; importing 'posenc/explorer' in Node throws nothing", () => {
    const [major, minor] = pkg.engines.node.replace(/^>=\s*/, '').split('.').map(Number);
    const [nodeMajor, nodeMinor] = process.versions.node.split('.').map(Number);
    expect(nodeMajor > major || (nodeMajor === major && nodeMinor >= minor)).toBe(true); // this Node is one engines admits
    expect([major, minor]).toEqual([20, 19]); // the first 20.x whose require() loads ES modules without a flag
    writeFileSync(join(project, 'require.cjs'), `const { loadPosenc } = require('posenc');
loadPosenc().then((pe) => console.log(JSON.stringify({ build: pe.build, alibi: Array.from(pe.alibiSlopes(2)) })));
`);
    const out = JSON.parse(run(process.execPath, ['require.cjs'], { cwd: project }));
    expect(out.alibi).toEqual([0.0625, 0.00390625]);
    writeFileSync(join(project, 'ssr.mjs'), `const m = await import('posenc/explorer');
console.log(JSON.stringify(Object.keys(m).sort()));
`);
    expect(JSON.parse(run(process.execPath, ['ssr.mjs'], { cwd: project }))).toEqual(['PosencExplorer', 'configure', 'fetchCheckpoints', 'stateFromAttributes']);
  });
});
