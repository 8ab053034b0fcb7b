// The site of the llama.cpp witness tests (wllama, llama.cpp compiled to wasm, beside posenc): an empty page at /, the
// wllama package at /wllama/ (cacheable: Chromium may keep its compiled wasm), the GGUF files a test wrote at /gguf/
// (from `dir`), and the repository at / (the library).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { listen } from '../../scripts/browser.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Serves the witness page for the GGUF files in `dir`: resolves to {url, close()}. */
export function wllamaSite(dir) {
  const wllamaDir = createRequire(import.meta.url).resolve('@wllama/wllama').replace(/esm\/index\.(c?js)$/, '');
  const serve = { '/wllama/': sirv(wllamaDir, { maxAge: 3600 }), '/gguf/': sirv(dir, { dev: true }), '/': sirv(root, { dev: true }) };
  return listen((req, res) => {
    if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html' }); return res.end('<!doctype html><title>llama.cpp witness</title>'); }
    const prefix = Object.keys(serve).find((p) => req.url.startsWith(p));
    req.url = req.url.slice(prefix.length - 1);
    return serve[prefix](req, res, () => { res.statusCode = 404; res.end(); });
  });
}
