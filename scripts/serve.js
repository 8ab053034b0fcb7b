// `npm start`: serves the explorer (web/) and the browser packages it
// imports, with the right MIME types for .wasm and .mjs, on localhost,
// compressed (brotli or gzip, node:zlib) for a browser that accepts it.
import http from 'node:http';
import sirv from 'sirv';
import zlib from 'node:zlib';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const port = Number(process.env.PORT ?? 8080);
const host = process.env.HOST ?? '127.0.0.1';

// Where the reader's browser may fetch a language model from ("Your model, past its context"): Hugging Face, and
// the hosts its `resolve` downloads redirect to. Hugging Face publishes them at https://huggingface.co/.well-known/meta.json
// (lfsDomains, cdnDomains); files in Xet storage are served to plain HTTP clients by its Git LFS bridge,
// cas-bridge.xethub.hf.co (https://huggingface.co/docs/hub/xet/legacy-git-lfs). Xet's own client hosts
// (transfer.xethub*) are not needed: a browser downloads through the bridge.
export const MODEL_HOSTS = ['huggingface.co', 'cas-bridge.xethub.hf.co', 'cdn-lfs.hf.co', 'cdn-lfs-us-1.hf.co', 'cdn-lfs-eu-1.hf.co',
  'aws.cdn.hf.co', 'us.aws.cdn.hf.co', 'us-east-1.aws.cdn.hf.co', 'us-west-2.aws.cdn.hf.co', 'eu-west-3.aws.cdn.hf.co',
  'ap-southeast-1.aws.cdn.hf.co', 'us.gcp.cdn.hf.co', 'us-east1.us.gcp.cdn.hf.co', 'us-central1.us.gcp.cdn.hf.co',
  'us-west4.us.gcp.cdn.hf.co', 'europe-west4.us.gcp.cdn.hf.co', 'asia-southeast1.us.gcp.cdn.hf.co'];

// Strict: scripts only from this origin, wasm compiled but never eval'd JS, no
// plugins, no inline script, network only to this origin and the model hosts. The page, the component and the
// module all run under it (tests/browser/csp.test.js).
export const CSP = ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self' 'unsafe-inline'",
  `connect-src 'self' ${MODEL_HOSTS.map((h) => `https://${h}`).join(' ')}`,
  "img-src 'self' data: blob:", "object-src 'none'", "base-uri 'none'", "form-action 'self'"].join('; ');

// Cross-origin isolation, so the page gets shared memory and the language models run on threads: its own
// documents only in its browsing context group (COOP), and nothing from another origin that does not agree to it
// (COEP require-corp, which all three engines know; `credentialless` is not in WebKit). Everything the page loads is
// its own, and a model fetched from another origin (Hugging Face) comes by CORS, which satisfies COEP.
export const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

const headers = (res, path) => {
  if (path?.endsWith('.ckpt')) res.setHeader('Content-Type', 'application/octet-stream'); // (sirv knows no type for it)
  res.setHeader('Content-Security-Policy', CSP);
  for (const [k, val] of Object.entries(ISOLATION)) res.setHeader(k, val);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-cache');
};
const web = sirv(`${root}web`, { dev: true, setHeaders: headers, extensions: ['html'] });
const modules = sirv(`${root}node_modules`, { dev: true, setHeaders: headers });
// The built package and the examples that use it (examples/blog-post.html).
const mounts = ['dist', 'examples'].map((dir) => [`/${dir}/`, sirv(`${root}${dir}`, { dev: true, setHeaders: headers, extensions: ['html'] })]);

// What is sent compressed: scripts, wasm, JSON, SVG, CSS and checkpoints (float16 weights shrink a
// little more). Not HTML (pages are small, and the browser tests rewrite them on the way), not the
// already-compressed fonts and images, nothing under 1 KB and no partial (206) response.
const COMPRESSIBLE = /^(text\/(javascript|css|plain)|application\/(javascript|json|wasm|octet-stream)|image\/svg\+xml)\b/;
const MIN_BYTES = 1024;
// Brotli at its best (quality 11, as CDNs store static files): slow the first time a file is asked for, then served
// from the cache below, so every later request gets the smallest body for free.
const BROTLI_QUALITY = 11;
// Compressed bodies by content hash and encoding: in memory, and in a directory under the system tmp dir
// so later servers (each browser test starts one) skip the slow brotli pass. Never in the tree.
const cache = new Map();
const cacheDir = join(tmpdir(), 'posenc-serve-cache');

/** `body` compressed as `encoding` ('br' | 'gzip') the way this server sends it (deterministic). */
export function compressBody(body, encoding) {
  const key = `${createHash('sha256').update(body).digest('hex').slice(0, 32)}.q${BROTLI_QUALITY}.${encoding}`;
  let out = cache.get(key);
  if (out) return out;
  const file = join(cacheDir, key);
  try {
    out = readFileSync(file);
  } catch {
    out = encoding === 'br'
      ? zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
      : zlib.gzipSync(body, { level: 9 });
    try {
      mkdirSync(cacheDir, { recursive: true });
      writeFileSync(`${file}.${process.pid}`, out);
      renameSync(`${file}.${process.pid}`, file); // (atomic: parallel servers never read half a file)
    } catch {
      // a read-only tmp dir: the memory cache still holds it
    }
  }
  cache.set(key, out);
  return out;
}

/** The encoding to send `req` in: 'br', 'gzip' or null (by Accept-Encoding, q=0 refusing one). */
export function chooseEncoding(header) {
  const accepted = new Map(String(header ?? '').split(',').map((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return [name, q ? Number(q.slice(2)) : 1];
  }));
  const ok = (name) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : null;
}

// Wraps res so a compressible 200 response goes out compressed, with Content-Encoding and Vary.
function compress(req, res) {
  const encoding = chooseEncoding(req.headers['accept-encoding']);
  res.setHeader('Vary', 'Accept-Encoding');
  if (!encoding || req.method !== 'GET') return;
  const { writeHead, write, end } = res;
  let chunks = null; // the uncompressed body, collected when compressing
  res.writeHead = function (code, ...rest) {
    const headers = rest.find((h) => h && typeof h === 'object');
    if (headers) for (const [k, val] of Object.entries(headers)) res.setHeader(k, val);
    const rest2 = rest.filter((h) => !(h && typeof h === 'object'));
    const type = String(res.getHeader('Content-Type') ?? '');
    const length = Number(res.getHeader('Content-Length') ?? NaN);
    if (code === 200 && COMPRESSIBLE.test(type) && !res.getHeader('Content-Encoding') && !(length < MIN_BYTES)) {
      chunks = [];
      res.removeHeader('Content-Length');
      res.setHeader('Content-Encoding', encoding);
    }
    return writeHead.call(this, code, ...rest2);
  };
  res.write = function (chunk, ...rest) {
    if (chunks === null) return write.call(this, chunk, ...rest);
    chunks.push(Buffer.from(chunk));
    return true; // (held until end: the files are small)
  };
  res.end = function (chunk, ...rest) {
    if (chunks === null) return end.call(this, chunk, ...rest);
    if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk));
    return end.call(this, compressBody(Buffer.concat(chunks), encoding));
  };
}

/**
 * `compress`: send compressible files brotli/gzip-compressed when the client accepts it (default true).
 * `mounts`: extra {'/prefix/': directory, or a (req, res) handler} to serve (tests only: the shared test models, a
 * slow download).
 */
export function createServer({ compress: compressed = true, mounts: extra = {} } = {}) {
  const extraMounts = Object.entries(extra).map(([prefix, dir]) =>
    [prefix, typeof dir === 'function' ? (req, res) => { headers(res); dir(req, res); } : sirv(dir, { dev: true, setHeaders: headers })]);
  return http.createServer((req, res) => {
    if (compressed) compress(req, res);
    for (const [prefix, serve] of extraMounts) {
      if (!req.url.startsWith(prefix)) continue;
      req.url = req.url.slice(prefix.length - 1);
      return serve(req, res, () => notFound(res));
    }
    if (req.url.startsWith('/node_modules/')) {
      req.url = req.url.slice('/node_modules'.length);
      return modules(req, res, () => notFound(res));
    }
    for (const [prefix, serve] of mounts) {
      if (!req.url.startsWith(prefix)) continue;
      req.url = req.url.slice(prefix.length - 1);
      return serve(req, res, () => notFound(res));
    }
    if (req.url === '/' || req.url.startsWith('/?')) {
      res.writeHead(302, { Location: `/app/${req.url.slice(1)}` });
      return res.end();
    }
    if (req.url.split('?')[0] === '/checkpoints/index.json' && !existsSync(`${root}web/checkpoints/index.json`)) {
      // The shipped checkpoints the page may load (an empty list when there are none yet).
      const dir = `${root}web/checkpoints`;
      const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.ckpt')).sort() : [];
      res.setHeader('Content-Type', 'application/json');
      headers(res);
      return res.end(JSON.stringify(files));
    }
    web(req, res, () => notFound(res));
  });
}

function notFound(res) {
  res.statusCode = 404;
  headers(res);
  res.end('not found');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = createServer();
  server.on('error', (e) => {
    console.error(e.code === 'EADDRINUSE' ? `posenc: port ${port} is in use; try PORT=8081 npm start` : e.message);
    process.exit(1);
  });
  server.listen(port, host, () => {
    const base = `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`;
    console.log(`posenc explorer: ${base}/`);
    console.log(`  embed page:    ${base}/embed.html?encodings=rope,alibi&autoplay=1`);
    console.log(`  sample post:   ${base}/examples/blog-post.html`);
  });
}
