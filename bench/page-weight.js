// What the sample blog post (examples/blog-post.html, two <posenc-explorer>s) transfers from the
// project's server (scripts/serve.js, as `npm start`), in headless Chromium: every response of the
// page and its Workers, scrolled so both explorers start and their shipped checkpoints load. Bytes
// over the wire = the encoded (compressed) body sizes, grouped by kind; with --no-compress the
// server sends everything as is.
//
//   node bench/page-weight.js [--no-compress] [--json]
import { startServer } from '../scripts/browser.js';
import { createServer, compressBody } from '../scripts/serve.js';
import { launchBrowser } from '../scripts/browser.js';

const KINDS = [['checkpoints', /\.ckpt$/], ['wasm', /\.wasm$/], ['JS', /\.m?js$/], ['HTML', /\.html$/], ['CSS', /\.css$/], ['JSON', /\.json$/]];
const kindOf = (url) => KINDS.find(([, re]) => re.test(new URL(url).pathname))?.[0] ?? 'other';

/** {total, byKind: {kind: {bytes, raw, files}}, files: [{url, bytes, raw, encoding}]} for one load of the post. */
export async function measurePost({ compress = true, browser: given } = {}) {
  const server = compress ? await startServer() : await plainServer();
  const browser = given ?? await launchBrowser();
  const page = await browser.newPage();
  const files = [];
  const pending = [];
  const raw = page.raw ?? page;
  raw.on('requestfinished', (req) => pending.push((async () => {
    const res = await req.response();
    if (!res) return;
    const sizes = await req.sizes();
    const body = await res.body();
    const encoding = (await res.allHeaders())['content-encoding'] ?? '';
    // Chromium reports no body size for a Worker's requests: the server's own compression of the body
    // (deterministic) gives the bytes it sent.
    const bytes = sizes.responseBodySize || (encoding ? compressBody(body, encoding).length : body.length);
    // What a CDN that gzips (level 9) would send instead, for the same compressible files.
    const gzip = encoding ? compressBody(body, 'gzip').length : body.length;
    files.push({ url: req.url(), bytes, raw: body.length, gzip, encoding, worker: !sizes.responseBodySize });
  })()));
  try {
    await raw.setViewportSize?.({ width: 1200, height: 900 });
    await raw.goto(`${server.url}/examples/blog-post.html`);
    const wait = async (fn, ms, what) => {
      const t0 = Date.now();
      while (!(await raw.evaluate(fn))) {
        if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    // Scroll each explorer into view; wait until every row of both has its shipped checkpoint.
    for (const i of [0, 1]) {
      await raw.evaluate((i) => document.querySelectorAll('posenc-explorer')[i].scrollIntoView(), i);
      await new Promise((r) => setTimeout(r, 500));
    }
    await wait(() => [...document.querySelectorAll('posenc-explorer')].every((el) => {
      const runs = el.controller?.trainer?.runs;
      return runs && el.state.encodings.every((e) => runs.get(e)?.status === 'checkpoint');
    }), 120000, 'both explorers to load their checkpoints');
    await new Promise((r) => setTimeout(r, 1000));
    await Promise.all(pending);
  } finally {
    await raw.close();
    if (!given) await browser.close();
    await server.close();
  }
  const byKind = {};
  for (const f of files) {
    const k = (byKind[kindOf(f.url)] ??= { bytes: 0, raw: 0, files: 0 });
    k.bytes += f.bytes;
    k.raw += f.raw;
    k.files++;
  }
  const sum = (k) => files.reduce((a, f) => a + f[k], 0);
  return { total: sum('bytes'), raw: sum('raw'), gzip: sum('gzip'), byKind, files };
}

async function plainServer() {
  const inner = createServer({ compress: false });
  await new Promise((r) => inner.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${inner.address().port}`, close: () => new Promise((r) => inner.close(r)) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const compress = !process.argv.includes('--no-compress');
  const r = await measurePost({ compress });
  const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
  if (process.argv.includes('--json')) console.log(JSON.stringify(r, null, 1));
  else {
    console.log(`examples/blog-post.html from scripts/serve.js (${compress ? 'compressed' : 'uncompressed'}): ${kb(r.total)} over the wire (${kb(r.raw)} of files` +
      `${compress ? `; ${kb(r.gzip)} where gzip -9 is sent instead of brotli` : ''})`);
    console.log('| kind | files | over the wire | files |\n|---|---:|---:|---:|');
    for (const [k, v] of Object.entries(r.byKind).sort((a, b) => b[1].bytes - a[1].bytes)) console.log(`| ${k} | ${v.files} | ${kb(v.bytes)} | ${kb(v.raw)} |`);
  }
}
