// Bundles with Vite (its library mode, offline).
//   node scripts/build-dist.js vendor   web/vendor/d3.js, the d3 parts the pages import (no import map needed)
//   node scripts/build-dist.js          dist/: the npm package (see README "Use it from JavaScript")
import { build } from 'vite';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (p) => fileURLToPath(new URL(`../${p}`, import.meta.url));
const mtime = (p) => { try { return statSync(at(p)).mtimeMs; } catch { return 0; } };

async function vendor() {
  if (mtime('web/vendor/d3.js') > Math.max(mtime('web/vendor/d3-entry.js'), mtime('package-lock.json'))) return;
  await build({
    configFile: false, logLevel: 'warn', root,
    build: {
      lib: { entry: at('web/vendor/d3-entry.js'), formats: ['es'], fileName: () => 'd3.js' },
      outDir: at('web/vendor'), emptyOutDir: false, minify: true, copyPublicDir: false,
    },
  });
}

const what = process.argv[2] ?? 'dist';
if (what === 'vendor') await vendor();
else {
  await vendor();
  const { buildDist } = await import('./dist.js');
  await buildDist({ root, at });
}
