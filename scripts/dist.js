// dist/: the npm package, built by Vite from web/ (no source is changed).
//
//   dist/posenc.js            the library (ES module; fetches its .wasm from dist/assets/)
//   dist/posenc.single.js     the library with both .wasm builds inlined (no .wasm to serve)
//   dist/explorer.js          <posenc-explorer>, the web component (the library in dist/assets/)
//   dist/assets/{sweep,train,lm}-worker.js  its Workers, self-contained, at stable paths
//   dist/*.d.ts               the TypeScript declarations (types/; their table parts written by scripts/registry.js)
//   dist/app/, dist/embed.html  the full explorer and the iframe embed page
//   dist/standalone.html      one file, works from file:// (everything inlined; the sweep runs on the main thread)
//   dist/checkpoints/         the shipped checkpoints
//   dist/_headers             the cross-origin isolation headers, for static hosts that read such a file
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
 * instead of more inlined copies (Workers, which file:// cannot start anyway,
 * stay references to files that are not there: the handlers run on the main thread).
 */
function noFetchedAssets() {
  return {
    name: 'posenc-no-fetched-assets',
    enforce: 'pre',
    transform(code, id) {
      if (!/\.m?js$/.test(id) || id.includes('node_modules')) return null;
      const out = code
        .replace(/new URL\((['"])([^'"]*?)([\w.-]+\.wasm)\1,\s*import\.meta\.url\)/g, (_, q, dir, name) => JSON.stringify(name));
      return out === code ? null : { code: out, map: null };
    },
  };
}

/**
 * What the package's code must look like to a user's bundler:
 * - the Worker scripts and the checkpoint index stay literal references next to the chunk
 *   (`new URL("./sweep-worker.js", import.meta.url)`, `import("../checkpoints/index.js")`), which
 *   webpack, Vite, Parcel and Rollup (with its import-meta-assets plugin) recognise and copy; the Workers
 *   are built separately as self-contained files, and the checkpoints ship in dist/checkpoints/;
 * - no bare `process` (the Emscripten glue tests `typeof process`): Parcel takes that for Node's
 *   global and pulls in a polyfill.
 */
/** `code` with every bare `process` as `globalThis.process`. */
const globalProcess = (code) => code.replace(/(?<![.\w$])process(?![\w$])/g, 'globalThis.process');

const WORKER_FILES = { './sweep-worker.js': './sweep-worker.js', '../../lib/train-worker.js': './train-worker.js', './worker.js': './lm-worker.js' };
const CHECKPOINTS = 'posenc-checkpoints-index'; // a placeholder, external during the build
/** With `wasmBeside`, the .wasm references are left to run time too (a Worker given a compiled module never fetches it). */
function packageReferences({ wasmBeside = false } = {}) {
  return {
    name: 'posenc-package-references',
    enforce: 'pre',
    resolveId: (id) => (id === CHECKPOINTS ? { id, external: true } : null),
    transform(code, id) {
      if (!/\.m?js$/.test(id) || id.includes('node_modules')) return null;
      let out = code.replace(/new URL\((['"])(\.{1,2}\/[\w/.-]+\.js)\1,\s*import\.meta\.url\)/g, (m, q, path) =>
        WORKER_FILES[path] ? `new URL(/* @vite-ignore */ ${JSON.stringify(WORKER_FILES[path])}, import.meta.url)` : m);
      out = out.replace(/import\((['"])(?:\.\.\/)+checkpoints\/index\.js\1\)/g, `import(${JSON.stringify(CHECKPOINTS)})`);
      // (the message that names where the checkpoints were looked for: from dist/assets/, they sit in dist/checkpoints/)
      out = out.replace(/new URL\((['"])(?:\.\.\/)+checkpoints\/\1, here\)/g, 'new URL(\'../checkpoints/\', here)');
      if (wasmBeside) out = out.replace(/new URL\((['"])(?:\.\.\/wasm\/)?(posenc-(?:lm-)?(?:simd|scalar)(?:-mt\.(?:wasm|worker\.js|mjs)|\.wasm))\1,\s*import\.meta\.url\)/g,
        (_, q, name) => `new URL(/* @vite-ignore */ ${JSON.stringify(`./${name}`)}, import.meta.url)`);
      if (/[\\/]web[\\/]wasm[\\/][^/\\]+\.mjs$/.test(id)) out = globalProcess(out);
      return out === code ? null : { code: out, map: null };
    },
    renderChunk: (code) => (code.includes(CHECKPOINTS)
      ? code.replace(new RegExp(`(["'\`])${CHECKPOINTS}\\1`, 'g'), '"../checkpoints/index.js"') : null),
  };
}

/**
 * For the builds that are one file each (posenc.single.js, standalone.html, the two Workers): index.js's lazy
 * import of the language models (lm.js, its module's glue and the tokenizer library) becomes a refusal that
 * says where they are, so none of it is inlined where it is never used; the language models' .wasm is
 * fetched on demand by the library ('posenc'), never inlined.
 */
const NO_LM = '\0posenc-no-language-models';
function noLanguageModels() {
  return {
    name: 'posenc-no-language-models',
    enforce: 'pre',
    resolveId: (id, importer) => (id === './lm.js' && /[\\/]web[\\/]lib[\\/]index\.js$/.test(importer ?? '') ? NO_LM : null),
    load: (id) => (id === NO_LM ? `export const loadLanguageModelApi = () => Promise.reject(new RangeError(
  "loadLanguageModel: this one-file build of posenc has no language-model module (a separate file, fetched on demand): import { loadPosenc } from 'posenc' to use it"));\n` : null),
  };
}

const common = (root) => ({ configFile: false, logLevel: 'warn', root, publicDir: false, plugins: [packageReferences()] });

/** Bundles `entry` into one ES module with the wasm (and checkpoints) inlined; returns its code. */
async function buildOneFile({ root, at, out, entry }) {
  const tmp = join(out, 'one-file-tmp');
  await build({
    ...common(root),
    plugins: [inlineAssets(at), noFetchedAssets(), noLanguageModels(), packageReferences()],
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

/**
 * A Worker script as one self-contained ES module at dist/assets/<name> (its .wasm beside it), at a stable path.
 * `languageModels`: the language models' JS goes in it too (the language model's Worker), its .wasm beside it.
 */
async function buildWorker({ at, out, entry, name, languageModels = false }) {
  await build({
    ...common(at('web')),
    plugins: [...(languageModels ? [] : [noLanguageModels()]), packageReferences({ wasmBeside: true })],
    build: {
      outDir: join(out, 'assets'), emptyOutDir: false, target: 'es2022', minify: true, assetsInlineLimit: 0, modulePreload: false,
      copyPublicDir: false, reportCompressedSize: false,
      rollupOptions: { input: at(entry), preserveEntrySignatures: false,
        output: { format: 'es', entryFileNames: name, codeSplitting: false, assetFileNames: '[name][extname]' } },
    },
  });
}

export async function buildDist({ root, at }) {
  const out = at('dist');
  rmSync(out, { recursive: true, force: true });
  const t0 = Date.now();

  // 0. The Workers, self-contained (a user's bundler copies each as one file).
  await buildWorker({ at, out, entry: 'web/app/lab/sweep-worker.js', name: 'sweep-worker.js' });
  await buildWorker({ at, out, entry: 'web/lib/train-worker.js', name: 'train-worker.js' });
  await buildWorker({ at, out, entry: 'web/app/lm/worker.js', name: 'lm-worker.js', languageModels: true });

  // 1. The library, the component and the pages, sharing chunks.
  await build({
    ...common(at('web')),
    base: './',
    build: {
      outDir: out, emptyOutDir: false, target: 'es2022', minify: true, modulePreload: false,
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

  // 5. The threaded module's glue and Workers' script, copied as they are for its Workers to load: no bare `process`
  // in them either.
  for (const f of ['posenc-lm-simd-mt.mjs', 'posenc-lm-simd-mt.worker.js']) {
    const file = join(out, 'assets', f);
    writeFileSync(file, globalProcess(readFileSync(file, 'utf8')));
  }

  // 6. For static hosts that read a _headers file (Netlify, Cloudflare Pages): the isolation `npm start` sends, so that
  // dist/app/ runs the language models on threads there too.
  const { ISOLATION } = await import('./serve.js');
  writeFileSync(join(out, '_headers'), `/*\n${Object.entries(ISOLATION).map(([k, val]) => `  ${k}: ${val}\n`).join('')}`);

  console.log(`posenc: dist/ built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
