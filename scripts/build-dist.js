// Bundles with Vite (its library mode, offline).
//   node scripts/build-dist.js vendor   web/vendor/{d3,gifenc,tokenizers}.js, the packages the pages import (no import map needed),
//                                       and web/vendor/noto-sans-math.woff2
//   node scripts/build-dist.js          dist/: the npm package (see README "Use it from JavaScript")
import { build } from 'vite';
import { statSync, copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (p) => fileURLToPath(new URL(`../${p}`, import.meta.url));
const mtime = (p) => { try { return statSync(at(p)).mtimeMs; } catch { return 0; } };

const VENDOR = ['d3', 'gifenc', 'tokenizers'];

// The math font the page's MathML uses (Noto Sans Math: an OpenType MATH table, so fences and matrices stretch
// the same in Chromium, Firefox and WebKit, whatever fonts the reader has).
const MATH_FONT = ['node_modules/@fontsource/noto-sans-math/files/noto-sans-math-latin-400-normal.woff2', 'web/vendor/noto-sans-math.woff2'];

async function vendor() {
  copyFileSync(at(MATH_FONT[0]), at(MATH_FONT[1]));
  const built = Math.min(...VENDOR.map((n) => mtime(`web/vendor/${n}.js`)));
  if (built > Math.max(...VENDOR.map((n) => mtime(`web/vendor/${n}-entry.js`)), mtime('package-lock.json'))) return;
  await build({
    configFile: false, logLevel: 'warn', root,
    build: {
      lib: { entry: Object.fromEntries(VENDOR.map((n) => [n, at(`web/vendor/${n}-entry.js`)])), formats: ['es'], fileName: (_, name) => `${name}.js` },
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
