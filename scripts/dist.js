// dist/: the npm package, built by Vite from web/ (no source is changed).
//
//   dist/posenc.js            the library (ES module; fetches its .wasm from dist/assets/)
//   dist/posenc.single.js     the library with both .wasm builds inlined (no .wasm to serve)
//   dist/explorer.js          <posenc-explorer>, the web component (its Workers and the library in dist/assets/)
//   dist/*.d.ts               the hand-written TypeScript declarations (types/)
//   dist/app/, dist/embed.html  the full explorer and the iframe embed page
//   dist/standalone.html      one file, works from file:// (everything inlined; the sweep runs on the main thread)
//   dist/checkpoints/         the shipped checkpoints
//
// Every chunk lives in dist/assets/, one level below dist/ as the sources are
// one level below web/, so the relative URLs the code uses at run time
// (../checkpoints/, ../app/) point at the same things in both.
import { build } from 'vite';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const INLINE = 'posenc-inline:'; // virtual modules: posenc-inline:wasm/<flavour>, posenc-inline:checkpoints

/** A Vite plugin that serves the .wasm builds and the copy-task checkpoints as base64 strings. */
function inlineAssets(at) {
  return {
    name: 'posenc-inline',
    resolveId: (id) => (id.startsWith(INLINE) ? `\0${id}` : null),
    load(id) {
      if (!id.startsWith(`\0${INLINE}`)) return null;
      const what = id.slice(INLINE.length + 1);
      if (what.startsWith('wasm/')) {
        const bytes = readFileSync(at(`web/wasm/posenc-${what.slice(5)}.wasm`));
        return `export default ${JSON.stringify(bytes.toString('base64'))};`;
      }
      if (what === 'checkpoints') {
        const dir = at('web/checkpoints');
        const files = readdirSync(dir).filter((f) => f.startsWith('copy-') && f.endsWith('.ckpt')).sort();
        const map = Object.fromEntries(files.map((f) => [f, readFileSync(join(dir, f)).toString('base64')]));
        return `export default ${JSON.stringify(map)};`;
      }
      throw new Error(`unknown inline asset ${id}`);
    },
  };
}

/**
 * For the one-file builds: the .wasm bytes come inlined, so the code's
 * `new URL('x.wasm', import.meta.url)` (ours and Emscripten's) become plain names
 * instead of more inlined copies, and Workers (which file:// cannot start
 * anyway) are not bundled in.
 */
function noFetchedAssets() {
  return {
    name: 'posenc-no-fetched-assets',
    enforce: 'pre',
    transform(code, id) {
      if (!/\.m?js$/.test(id) || id.includes('node_modules')) return null;
      const out = code
        .replace(/new URL\((['"])([^'"]*?)([\w.-]+\.wasm)\1,\s*import\.meta\.url\)/g, (_, q, dir, name) => JSON.stringify(name))
        .replace(/new Worker\(new URL\([^)]*\)[^)]*\)/g, "(() => { throw new Error('Workers are not available in this build'); })()");
      return out === code ? null : { code: out, map: null };
    },
  };
}

const common = (root) => ({ configFile: false, logLevel: 'warn', root, publicDir: false, plugins: [] });

/** Bundles `entry` into one ES module with the wasm (and checkpoints) inlined; returns its code. */
async function buildOneFile({ root, at, out, entry }) {
  const tmp = join(out, 'one-file-tmp');
  await build({
    ...common(root),
    plugins: [inlineAssets(at), noFetchedAssets()],
    build: {
      outDir: tmp, emptyOutDir: true, target: 'es2022', minify: true, assetsInlineLimit: 0,
      copyPublicDir: false, reportCompressedSize: false,
      lib: { entry: at(entry), formats: ['es'], fileName: () => 'out.js' },
      rollupOptions: { output: { codeSplitting: false } },
    },
  });
  const code = readFileSync(join(tmp, 'out.js'), 'utf8');
  rmSync(tmp, { recursive: true, force: true });
  return code;
}

export async function buildDist({ root, at }) {
  const out = at('dist');
  rmSync(out, { recursive: true, force: true });
  const t0 = Date.now();

  // 1. The library, the component and the pages, sharing chunks.
  await build({
    ...common(at('web')),
    base: './',
    worker: {
      format: 'es',
      // one file per Worker (no chunks), so a user's bundler can rebuild each Worker from it alone
      rollupOptions: { output: { entryFileNames: 'assets/[name]-[hash].js', assetFileNames: 'assets/[name][extname]', codeSplitting: false } },
    },
    build: {
      outDir: out, emptyOutDir: false, target: 'es2022', minify: true, modulePreload: { polyfill: false },
      assetsInlineLimit: 0, copyPublicDir: false, reportCompressedSize: false,
      rollupOptions: {
        input: {
          posenc: at('web/lib/index.js'),
          explorer: at('web/component/posenc-explorer.js'),
          app: at('web/app/index.html'),
          embed: at('web/embed.html'),
        },
        preserveEntrySignatures: 'strict',
        output: { entryFileNames: 'assets/[name].js', chunkFileNames: 'assets/[name]-[hash].js', assetFileNames: 'assets/[name][extname]' },
      },
    },
  });
  // Entry points at the top of dist/.
  writeFileSync(join(out, 'posenc.js'), "export * from './assets/posenc.js';\n");
  writeFileSync(join(out, 'explorer.js'), "export * from './assets/explorer.js';\n");

  // 2. The single-file library: one module, both .wasm builds inlined.
  writeFileSync(join(out, 'posenc.single.js'), await buildOneFile({ root, at, out, entry: 'web/lib/single.js' }));

  // 3. standalone.html: the component, the wasm and the copy-task checkpoints in one file, for file://.
  const js = (await buildOneFile({ root, at, out, entry: 'web/component/standalone.js' })).replace(/<\/(script)/gi, '<\\/$1');
  const page = readFileSync(at('web/component/standalone.html'), 'utf8').replace('<!-- posenc:script -->',
    () => `<script type="module">${js}</script>`);
  writeFileSync(join(out, 'standalone.html'), page);

  // 4. Checkpoints, types.
  mkdirSync(join(out, 'checkpoints'), { recursive: true });
  for (const f of readdirSync(at('web/checkpoints'))) cpSync(at(`web/checkpoints/${f}`), join(out, 'checkpoints', f));
  if (existsSync(at('types'))) for (const f of readdirSync(at('types'))) cpSync(at(`types/${f}`), join(out, f));

  console.log(`posenc: dist/ built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
