// The package as a user gets it: `npm pack`, installed offline into a fresh
// project, then
//  - its contents (what ships, what must not, sizes printed for the release note);
//  - Node: `import 'posenc'` and `'posenc/single'` rotate by RoPE (both builds)
//    and match a float64 reference;
//  - TypeScript: the `types` conditions of the exports map resolve (bundler and
//    node16 resolution) to declarations that are not `any`;
//  - Vite: a page importing 'posenc' bundles without Node built-ins or resolve
//    warnings, ships the .wasm as an asset (within the 150 KB gzip budget), and
//    computes the same rotation in headless Chromium; a page importing
//    'posenc/explorer' bundles too, and its element trains and sweeps in its Workers.
// dist/ comes from `npm run build` (scripts/setup.sh runs it before the tests);
// it is built here only when missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import sirv from 'sirv';
import { launchBrowser } from '../browser/harness.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

// Rows at positions from 0 to 10^6 (where float32 angles would be useless), width 64
// (several SIMD lanes, both halves), in both layouts, with and without scaling.
const POSITIONS = [0, 1, 7, 1000, 65536, 1000000];
const CASES = [
  { length: 6, dim: 64, layout: 'half', positions: POSITIONS },
  { length: 6, dim: 64, layout: 'interleaved', positions: POSITIONS, scaling: { rope_type: 'linear', factor: 4 } },
];
const X = Array.from(Float32Array.from({ length: 6 * 64 }, (_, i) => Math.sin(0.37 * i + 1) * (1 + (i % 5))));

/** RoPE in float64, straight from the definition: pairs rotated by position * base^(-2i/dim) / factor. */
function ropeReference(x, { length, dim, layout, positions, scaling }) {
  const out = new Float64Array(length * dim);
  const factor = scaling?.factor ?? 1;
  for (let t = 0; t < length; t++) {
    for (let i = 0; i < dim / 2; i++) {
      const angle = positions[t] * (1 / 10000 ** ((2 * i) / dim) / factor);
      const [p, q] = layout === 'half' ? [t * dim + i, t * dim + i + dim / 2] : [t * dim + 2 * i, t * dim + 2 * i + 1];
      out[p] = x[p] * Math.cos(angle) - x[q] * Math.sin(angle);
      out[q] = x[q] * Math.cos(angle) + x[p] * Math.sin(angle);
    }
  }
  return out;
}

// Float32 output of float64-reduced angles: 1e-5 up to position 65536, 1e-4 at 10^6
// (the README's accuracy claim). Returns the worst error seen, for the log.
function expectRope(values, c) {
  const ref = ropeReference(X, c);
  expect(values).toHaveLength(ref.length);
  let worst = 0;
  values.forEach((v, k) => {
    const err = Math.abs(v - ref[k]);
    worst = Math.max(worst, err);
    const tolerance = c.positions[Math.floor(k / c.dim)] > 65536 ? 1e-4 : 1e-5;
    if (!(err <= tolerance)) throw new Error(`value ${k} (position ${c.positions[Math.floor(k / c.dim)]}): ${v} vs ${ref[k]}`);
  });
  return worst;
}

// The code a user writes, shared by the Node and the Vite checks.
const computeModule = (entry) => `import { loadPosenc } from '${entry}';
const CASES = ${JSON.stringify(CASES)};
const X = Float32Array.from(${JSON.stringify(X)});
export async function compute(build) {
  const pe = await loadPosenc({ build });
  return { build: pe.build, results: CASES.map((c) => Array.from(pe.applyRope(X, c))) };
}
`;

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 180000, ...options });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${output}`);
  return output;
}

const files = (dir) => readdirSync(dir, { recursive: true }).map(String).filter((f) => statSync(join(dir, f)).isFile());
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

let work, project, packed, pkg;
beforeAll(() => {
  if (!existsSync(join(root, 'dist/posenc.js'))) run(process.execPath, ['scripts/build-dist.js'], { cwd: root });
  work = mkdtempSync(join(tmpdir(), 'posenc-package-'));
  [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root }));
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'posenc-consumer', private: true, type: 'module' }));
  // An empty cache and --offline: installing must need nothing but the tarball.
  run('npm', ['install', join(work, packed.filename), '--offline', '--no-audit', '--no-fund', '--cache', join(work, 'npm-cache')],
    { cwd: project });
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
    for (const t of targets) expect([t, paths.has(t.replace(/^\.\//, ''))]).toEqual([t, true]);
    for (const key of ['.', './single', './explorer', './posenc-simd.wasm', './posenc-scalar.wasm', './package.json'])
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
});

// The repo's Vite, run in a directory of the project: it resolves 'posenc' from the
// project's node_modules. NODE_ENV as a user's build has it: Jest's 'test' makes Vite
// hide the Node built-in warning.
const viteBuild = (cwd, outDir) => run(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', outDir,
  '--emptyOutDir'], { cwd, env: { ...process.env, NODE_ENV: 'production', NO_COLOR: '1' } });

async function serve(dir) {
  const server = createServer(sirv(dir, { dev: true }));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Polls `fn` in the page until it returns something truthy (null after `ms`). */
async function poll(page, fn, ms) {
  for (const end = Date.now() + ms; Date.now() < end;) {
    const v = await page.evaluate(fn);
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

const page = (body, script) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>posenc under Vite</title></head>
<body>${body}<script type="module" src="./${script}"></script></body></html>
`;

describe('bundled by Vite', () => {
  let out, log, site;
  beforeAll(async () => {
    writeFileSync(join(project, 'rope-main.mjs'), computeModule('posenc'));
    writeFileSync(join(project, 'index.html'), page('<pre id="out">pending</pre>', 'main.js'));
    writeFileSync(join(project, 'main.js'), `import { compute } from './rope-main.mjs';
const out = document.getElementById('out');
Promise.all([compute('simd'), compute('scalar')]).then(
  (r) => { out.textContent = JSON.stringify(r); },
  (e) => { out.textContent = 'error: ' + (e && e.message); });
`);
    log = viteBuild(project, 'site');
    out = join(project, 'site');
    site = await serve(out);
  }, 120000);
  afterAll(() => site?.close());

  test('builds with no Node built-ins and no resolve warnings, and emits the .wasm as an asset', () => {
    expect(log).not.toMatch(/externalized for browser compatibility|can't resolve|could not resolve|failed to resolve|node:|\bfs\b/i);
    expect(log).not.toMatch(/\bwarn(ing)?\b/i);
    const built = files(out);
    // Nor in the bundle: Vite replaces a Node built-in by a stub that throws when used.
    for (const js of built.filter((f) => f.endsWith('.js'))) {
      const text = readFileSync(join(out, js), 'utf8');
      expect([js, /externalized for browser compatibility|__vite-browser-external|["'`]node:/.test(text)]).toEqual([js, false]);
    }
    const wasm = built.filter((f) => f.endsWith('.wasm'));
    expect(wasm.some((f) => /posenc-simd.*\.wasm$/.test(f))).toBe(true);
    // What a page using 'posenc' ships (JS + the SIMD .wasm), against the 150 KB gzip budget.
    const shipped = built.filter((f) => f.endsWith('.js') || /posenc-simd.*\.wasm$/.test(f));
    const sizes = shipped.map((f) => [relative(out, join(out, f)), statSync(join(out, f)).size, gzipSync(readFileSync(join(out, f))).length]);
    const gzip = sizes.reduce((s, [, , g]) => s + g, 0);
    console.log(`Vite output shipped for 'posenc' (SIMD): ${sizes.map(([f, r, g]) => `${f} ${r} B (${g} B gzip)`).join(', ')}; total ${kb(gzip)} gzip`);
    expect(gzip).toBeLessThan(150 * 1024);
  });

  test('the bundled page computes the same rotation in headless Chromium, in both builds', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const wasm = [];
      page.on('response', (r) => { if (r.url().endsWith('.wasm')) wasm.push([r.status(), r.headers()['content-type']]); });
      await page.goto(site.url);
      const text = await poll(page, () => { const t = document.getElementById('out').textContent; return t !== 'pending' && t; }, 10000);
      expect(text).not.toMatch(/^error/);
      const [simd, scalar] = JSON.parse(text);
      expect([simd.build, scalar.build]).toEqual(['simd', 'scalar']);
      const worst = [simd, scalar].map((r) => Math.max(...CASES.map((c, i) => expectRope(r.results[i], c))));
      console.log(`Chromium (Vite bundle): worst |error| against float64: simd ${worst[0]}, scalar ${worst[1]}`);
      expect(wasm).toEqual([[200, 'application/wasm'], [200, 'application/wasm']]);
      expect(page.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  test("a page importing 'posenc/explorer' bundles, and its element trains and sweeps (Workers included)", async () => {
    const dir = join(project, 'explorer');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'index.html'), page(
      '<posenc-explorer encodings="rope,alibi" train-length="16" max-length="64" steps="20" autoplay></posenc-explorer>', 'main.js'));
    writeFileSync(join(dir, 'main.js'), "import 'posenc/explorer';\n");
    const explorerLog = viteBuild(dir, 'site');
    // Every problem is collected, so that one failure shows all of them.
    const problems = explorerLog.split('\n').filter((l) => /externalized for browser compatibility|could not resolve|failed to resolve/i.test(l));
    const served = await serve(join(dir, 'site'));
    const browser = await launchBrowser();
    try {
      const p = await browser.newPage();
      const failed = [];
      p.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`); });
      await p.goto(served.url);
      // Every row swept by its trained model (trainedLength > 0: the training Worker ran, the
      // sweep Worker evaluated), or the element's own error message, whichever comes first.
      const done = await poll(p, () => {
        const el = document.querySelector('posenc-explorer');
        const status = el?.shadowRoot?.querySelector('.status')?.textContent ?? '';
        if (/fail|error|could not/i.test(status)) return { status };
        const r = el?.results?.();
        return r && Object.keys(r).length === 2 && Object.values(r).every((points) => points.some((pt) => pt.trainedLength > 0)) &&
          { results: r, status };
      }, 60000);
      const { results, status } = done ?? {};
      // Checkpoints are not part of a bundle: without them the element trains in the browser.
      problems.push(...failed.filter((f) => !/\/checkpoints\//.test(f)).map((f) => `request: ${f}`));
      if (/fail|error|could not/i.test(status ?? '')) problems.push(`status: ${status}`);
      if (!results) problems.push(done ? 'no sweep results: the element reported an error' : 'no sweep results within 60 s');
      problems.push(...p.errors.filter((e) => !/404/.test(e)).map((e) => `page error: ${e}`));
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
      await served.close();
    }
  }, 120000);
});
