// The package in a user's project, built by every common bundler with its default
// (or documented one-line) setup: webpack 5, esbuild, Rollup 4, Parcel 2, Vite 5 and
// the project's own Vite. For each, two pages:
//  - a library page: `import { loadPosenc } from 'posenc'` rotates by RoPE in both
//    builds and matches a float64 reference in headless Chromium, without downloading
//    the language models' module; then a language model's forward, which fetches it, gives
//    the numbers this repository's library gives;
//  - an explorer page: `import 'posenc/explorer'` and one element, which draws its
//    maps from the shipped checkpoints, with its sweep in a Worker (no main-thread
//    fallback notice), and no request of the page fails.
// What each bundler needed, and the gzip size of what each page downloaded, is printed for the README.
import { jest } from '@jest/globals';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchBrowser } from '../browser/harness.js';
import { root, CASES, expectRope, computeModule, expectedLm, run, files, packAndInstall, serve, poll, htmlPage } from './consumer.js';

jest.setTimeout(240000);

const bin = (pkg, path) => join(root, 'node_modules', pkg, path);
const node = (args, cwd, env = {}) => run(process.execPath, args, { cwd, env: { ...process.env, NODE_ENV: 'production', NO_COLOR: '1', ...env } });
const dist = (project) => join(project, 'node_modules/posenc/dist');

// Where the bundler writes; `page` is 'library' or 'explorer'. Each returns the build log.
const BUNDLERS = {
  vite: {
    setup: 'none',
    build: (dir) => node([bin('vite', 'bin/vite.js'), 'build', '--outDir', 'out', '--emptyOutDir'], dir),
  },
  vite5: {
    setup: 'none',
    build: (dir) => node([bin('vite5', 'bin/vite.js'), 'build', '--outDir', 'out', '--emptyOutDir'], dir),
  },
  webpack: {
    setup: 'none',
    html: 'classic', // webpack's default output is a classic script
    build(dir) {
      writeFileSync(join(dir, 'webpack.config.js'), `export default { mode: 'production', entry: './main.js',
  output: { path: new URL('./out/', import.meta.url).pathname, filename: 'main.js', clean: true } };
`);
      return node([bin('webpack-cli', 'bin/cli.js'), '--config', 'webpack.config.js'], dir);
    },
  },
  esbuild: {
    setup: '`--splitting` (the language models\' code stays out of the page\'s bundle); copy `dist/assets/{sweep,train}-worker.js`, ' +
      "`dist/assets/*.wasm` next to the bundle and `dist/checkpoints/` beside it; `configure({ checkpoints: './checkpoints/' })`",
    explorerPrelude: "import { configure } from 'posenc/explorer';\nconfigure({ checkpoints: './checkpoints/' });\n",
    build(dir, project) {
      const log = run(bin('esbuild', 'bin/esbuild'), ['main.js', '--bundle', '--splitting', '--format=esm', '--minify', '--outdir=out'], { cwd: dir });
      const assets = join(dist(project), 'assets');
      for (const f of ['sweep-worker.js', 'train-worker.js', ...LM_WASM, 'posenc-simd.wasm', 'posenc-scalar.wasm']) cpSync(join(assets, f), join(dir, 'out', f));
      cpSync(join(dist(project), 'checkpoints'), join(dir, 'out/checkpoints'), { recursive: true });
      return log;
    },
  },
  rollup: {
    setup: '`@rollup/plugin-node-resolve` and `@web/rollup-plugin-import-meta-assets`',
    build(dir) {
      writeFileSync(join(dir, 'rollup.config.mjs'), `import { nodeResolve } from '@rollup/plugin-node-resolve';
import { importMetaAssets } from '@web/rollup-plugin-import-meta-assets';
export default { input: 'main.js', output: { dir: 'out', format: 'es' }, plugins: [nodeResolve({ browser: true }), importMetaAssets()] };
`);
      return node([bin('rollup', 'dist/bin/rollup'), '-c', 'rollup.config.mjs'], dir);
    },
  },
  parcel: {
    setup: '`"@parcel/resolver-default": { "packageExports": true }` in package.json',
    build(dir, project) {
      const pkgFile = join(project, 'package.json'); // Parcel reads it from the project root (where the lock file is)
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
      writeFileSync(pkgFile, JSON.stringify({ ...pkg, '@parcel/resolver-default': { packageExports: true } }));
      // CI=true: Parcel must not auto-install anything (a Node polyfill would fail the build here).
      return node([bin('parcel', 'lib/bin.js'), 'build', 'index.html', '--dist-dir', 'out', '--no-cache', '--no-source-maps',
        '--public-url', './'], dir, { CI: 'true' });
    },
  },
};

const LM_WASM = ['posenc-lm-simd.wasm', 'posenc-lm-scalar.wasm'];

// The element a blog post would hold: the defaults have shipped checkpoints.
const ELEMENT = '<posenc-explorer encodings="rope,alibi" autoplay></posenc-explorer>';

let work, project, browser;
beforeAll(() => {
  ({ work, project } = packAndInstall({ tools: true }));
  writeFileSync(join(project, 'rope-main.mjs'), computeModule('posenc'));
}, 240000);
// The Jest worker's Chromium (scripts/browser.js browserHost), and a fresh context per page: one bundler's page never shares a renderer process, cache or
// storage with the next one's (a launch per test cost 12 launches of 5-7 CPU-s each).
beforeAll(async () => {
  browser = await launchBrowser({ isolated: true, shared: true });
});
afterAll(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Writes a page's source for a bundler, builds it, and returns {out, log, built}. */
function buildPage(name, page) {
  const b = BUNDLERS[name];
  const dir = join(project, `${name}-${page}`);
  mkdirSync(dir, { recursive: true });
  const main = page === 'library'
    ? `import { compute, lmCheck } from '../rope-main.mjs';
window.lmCheck = lmCheck;
const out = document.getElementById('out');
Promise.all([compute('simd'), compute('scalar')]).then((r) => { out.textContent = JSON.stringify(r); },
  (e) => { out.textContent = 'error: ' + (e && e.message); });
`
    : `${b.explorerPrelude ?? ''}import 'posenc/explorer';\n`;
  writeFileSync(join(dir, 'main.js'), main);
  const body = page === 'library' ? '<pre id="out">pending</pre>' : ELEMENT;
  // Bundlers that read HTML get it as input; for the others it goes next to their output.
  const reader = ['vite', 'vite5', 'parcel'].includes(name);
  writeFileSync(join(dir, 'index.html'), htmlPage(body, 'main.js', { classic: b.html === 'classic' }));
  const log = b.build(dir, project);
  const out = join(dir, 'out');
  if (!reader) writeFileSync(join(out, 'index.html'), htmlPage(body, 'main.js', { classic: b.html === 'classic' }));
  return { out, log, built: files(out) };
}

/** Serves a page's build, recording every file the server sends (the page's and its Workers' requests). */
async function serveRecorded(out) {
  const served = new Set();
  const site = await serve(out, (res, pathname) => served.add(decodeURIComponent(pathname).replace(/^\//, '')));
  return { ...site, served };
}

/**
 * Gzip bytes of the scripts and .wasm files among `paths` (served from `out`), not counting the scalar .wasm,
 * which a page loads only without wasm SIMD (the library page asks for both builds), nor the checkpoints.
 */
function gzipOf(out, project, paths) {
  const scalar = readFileSync(join(dist(project), 'assets/posenc-scalar.wasm'));
  return [...paths].filter((f) => /\.m?js$/.test(f) || (/\.wasm$/.test(f) && !readFileSync(join(out, f)).equals(scalar)))
    .reduce((sum, f) => sum + gzipSync(readFileSync(join(out, f))).length, 0);
}

/** Which of `paths` are the language models' .wasm, whatever the bundler named them. */
function lmWasm(out, project, paths) {
  const lm = LM_WASM.map((f) => readFileSync(join(dist(project), 'assets', f)));
  return [...paths].filter((f) => /\.wasm$/.test(f) && lm.some((b) => readFileSync(join(out, f)).equals(b)));
}

/** Node built-ins, Node globals and stubs must not reach a browser bundle. */
function nodeLeaks(out, built) {
  const leaks = [];
  for (const f of built.filter((x) => /\.m?js$/.test(x))) {
    const text = readFileSync(join(out, f), 'utf8');
    if (/__vite-browser-external|externalized for browser compatibility|["'`]node:(fs|path|url|module)/.test(text)) leaks.push(`${f}: Node built-in`);
    if (/process\/browser|node_modules\/process\//.test(text)) leaks.push(`${f}: process polyfill`);
  }
  return leaks;
}

const summary = [];
afterAll(() => {
  if (summary.length) console.log(['| bundler | setup | library page | explorer page | gzip downloaded (library / explorer) | language models, on demand |',
    '|---|---|---|---|---|---|',
    ...summary.map((r) => `| ${r.name} | ${BUNDLERS[r.name].setup} | ${r.library} | ${r.explorer} | ${r.gzip} | ${r.lm} |`)].join('\n'));
});

describe.each(Object.keys(BUNDLERS))('%s', (name) => {
  const row = { name, library: 'not run', explorer: 'not run', gzip: '', lm: '' };
  beforeAll(() => summary.push(row));
  let lib, exp;

  test('the library page builds with no Node built-in, computes RoPE like float64 in Chromium in both builds, ' +
    'and fetches the language models\' module only for a language model', async () => {
    lib = buildPage(name, 'library');
    expect(nodeLeaks(lib.out, lib.built)).toEqual([]);
    expect(lib.built.some((f) => /posenc-simd[^/]*\.wasm$/.test(f) || /\.wasm$/.test(f))).toBe(true);
    expect(lmWasm(lib.out, project, lib.built).length).toBeGreaterThanOrEqual(1); // the bundler copied it
    const site = await serveRecorded(lib.out);
    const page = await browser.newPage();
    try {
      await page.goto(site.url);
      const text = await poll(page, () => { const t = document.getElementById('out').textContent; return t !== 'pending' && t; }, 20000);
      expect(text).not.toMatch(/^error/);
      const [simd, scalar] = JSON.parse(text);
      expect([simd.build, scalar.build]).toEqual(['simd', 'scalar']);
      for (const r of [simd, scalar]) CASES.forEach((c, i) => expectRope(r.results[i], c));
      expect(page.errors).toEqual([]);
      // What a page that never loads a language model downloads: none of the language models' module.
      const pageFiles = new Set(site.served);
      expect(lmWasm(lib.out, project, pageFiles)).toEqual([]);
      const gzip = gzipOf(lib.out, project, pageFiles);
      expect(gzip).toBeLessThan(180 * 1024); // the README's budget for module + glue + library
      // A language model: its module is fetched now, and its forward gives this repository's numbers.
      const lm = await page.evaluate(() => window.lmCheck('simd'));
      expect([lm.build, lm.format]).toEqual(['simd', 'llama2c']);
      const want = await expectedLm('simd');
      expect(lm.nll.map((x, i) => Math.abs(x - want[i]) < 1e-6)).toEqual(want.map(() => true));
      const lmFiles = [...site.served].filter((f) => !pageFiles.has(f));
      expect(lmWasm(lib.out, project, lmFiles)).toHaveLength(1);
      expect(page.errors).toEqual([]);
      row.library = 'works';
      row.gzip = `${(gzip / 1024).toFixed(0)} KB`;
      row.lm = `${(gzipOf(lib.out, project, lmFiles) / 1024).toFixed(0)} KB`;
    } finally {
      await page.close(); // an open explorer keeps animating and would slow every later page
      await site.close();
    }
  });

  test('the explorer page builds, and its element draws from the shipped checkpoints with its sweep in a Worker', async () => {
    exp = buildPage(name, 'explorer');
    expect(nodeLeaks(exp.out, exp.built)).toEqual([]);
    const site = await serveRecorded(exp.out);
    const page = await browser.newPage();
    try {
      const failed = [];
      const workers = [];
      page.on('response', (r) => { if (r.status() >= 400 && r.request().method() === 'GET') failed.push(`${r.status()} ${new URL(r.url()).pathname}`); });
      page.on('worker', (w) => workers.push(w.url()));
      await page.goto(site.url);
      const done = await poll(page, () => {
        const el = document.querySelector('posenc-explorer');
        const root = el?.shadowRoot;
        const notices = root?.querySelector('.notices')?.textContent ?? '';
        const status = root?.querySelector('.status')?.textContent ?? '';
        if (notices || /fail|error|could not/i.test(status)) return { notices, status };
        const r = el?.results?.();
        const ready = r && Object.keys(r).length === 2 && Object.values(r).every((pts) => pts.length >= 3 && pts.every((p) => p.trainedLength === 32));
        if (!ready) return { waiting: true, status, results: r && Object.fromEntries(Object.entries(r).map(([k, pts]) => [k, pts.map((p) => p.trainedLength)])) };
        const painted = [...root.querySelectorAll('canvas')].map((c) => {
          const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 3; i < d.length; i += 4) n += d[i] > 0;
          return n / (d.length / 4);
        });
        // the maps are drawn after the results arrive: wait for them too (the last state is reported on timeout)
        const waiting = painted.filter((p) => p > 0.2).length < 2;
        return { waiting, notices, status, painted, rows: root.querySelector('.rows').textContent };
      }, 60000, undefined, (v) => !v.waiting || v.notices || /fail|error|could not/i.test(v.status));
      expect(done.notices).toBe('');
      expect(done.status).not.toMatch(/fail|error|could not/i);
      expect(done.rows).toMatch(/shipped checkpoint/);
      expect(done.painted.filter((p) => p > 0.2).length).toBeGreaterThanOrEqual(2);
      expect(workers.length).toBeGreaterThanOrEqual(1); // the sweep ran in a Worker, not on the page's thread
      expect(failed).toEqual([]);
      expect(page.errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
      expect(lmWasm(exp.out, project, site.served)).toEqual([]);
      row.explorer = 'works';
      row.gzip += ` / ${(gzipOf(exp.out, project, site.served) / 1024).toFixed(0)} KB`;
    } finally {
      await page.close(); // an open explorer keeps animating and would slow every later page
      await site.close();
    }
  });
});
