// Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core)
// and the project's own static server on a free localhost port. Shared by the
// browser tests (tests/browser/harness.js) and the export CLI (scripts/export.js).
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { createServer } from './serve.js';

// An error recorder for WebKit (no log endpoint there): served as a same-origin script and put
// first into every HTML page (startServer({ recordErrors: true })). It sees the page's uncaught
// errors, rejections and console.error, not those inside Workers.
export const ERROR_RECORDER_PATH = '/__posenc-errors.js';
export const ERROR_RECORDER = `(() => {
  const errors = (window.__posencErrors ??= []);
  addEventListener('error', (e) => errors.push(String(e.error ?? e.message) + (e.filename ? \` (\${e.filename}:\${e.lineno})\` : '')));
  addEventListener('unhandledrejection', (e) => errors.push(\`unhandled rejection: \${e.reason}\`));
  const error = console.error.bind(console);
  console.error = (...a) => { errors.push(a.map(String).join(' ')); error(...a); };
})();`;


// Buffers an HTML response and puts <script src=ERROR_RECORDER_PATH> first into it.
function injectRecorder(res) {
  const { writeHead, write, end } = res;
  let html = null;
  const isHtml = (headers) => /text\/html/.test(String(headers?.['content-type'] ?? headers?.['Content-Type'] ?? res.getHeader('content-type') ?? ''));
  res.writeHead = function (code, ...rest) {
    const headers = rest.find((h) => h && typeof h === 'object');
    if (isHtml(headers)) {
      html = [];
      res.removeHeader('content-length');
      if (headers) for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-length') delete headers[k];
    }
    return writeHead.call(this, code, ...rest);
  };
  res.write = function (chunk, ...rest) {
    if (html === null && !res.headersSent && isHtml()) { html = []; res.removeHeader('content-length'); }
    if (html === null) return write.call(this, chunk, ...rest);
    html.push(Buffer.from(chunk));
    return true;
  };
  res.end = function (chunk, ...rest) {
    if (html === null && chunk && typeof chunk !== 'function' && !res.headersSent && isHtml()) { html = []; res.removeHeader('content-length'); }
    if (html === null) return end.call(this, chunk, ...rest);
    if (chunk && typeof chunk !== 'function') html.push(Buffer.from(chunk));
    const text = Buffer.concat(html).toString('utf8');
    const tag = `<script src="${ERROR_RECORDER_PATH}"></script>`;
    const out = /<head[^>]*>/i.test(text) ? text.replace(/<head[^>]*>/i, (m) => m + tag) : tag + text;
    return end.call(this, out);
  };
}

/**
 * The project's static server on a free loopback port. `recordErrors`: every HTML page gets the error recorder
 * (scripts/engines.js ERROR_RECORDER) as its first script, for engines whose driver reports no page errors (WebKit).
 */
export async function startServer({ recordErrors = false, mounts } = {}) {
  const inner = createServer({ mounts });
  const server = recordErrors ? http.createServer((req, res) => {
    if (req.url === ERROR_RECORDER_PATH) {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-cache' });
      return res.end(ERROR_RECORDER);
    }
    injectRecorder(res);
    inner.emit('request', req, res);
  }) : inner;
  return listen(server);
}

/**
 * Serves `server` (an http.Server) or a request handler on a free loopback port: {url, port, close}.
 * close() drops keep-alive connections too: a browser holds them open for as long as it runs, and
 * server.close() alone would wait until the browser's idle timeout closes them.
 */
export async function listen(serverOrHandler) {
  const server = typeof serverOrHandler === 'function' ? http.createServer(serverOrHandler) : serverOrHandler;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const close = () => new Promise((resolve) => {
    server.close(resolve);
    server.closeAllConnections();
  });
  return { url: `http://127.0.0.1:${port}`, port, close };
}

/** Chromium's launch options (webgpu: WebGPU on its software adapter instead of no GPU). */
export function chromiumOptions({ webgpu = false } = {}) {
  return {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', ...(webgpu ? ['--enable-unsafe-webgpu'] : ['--disable-gpu']), '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  };
}

/**
 * The browser this process keeps for its test files (scripts/browser-host.js): started by the first file of a Jest
 * worker that asks, and found again by the next ones through a file named by the worker's pid (a Jest worker runs its
 * files one after the other, each with fresh modules, in one process). Resolves to the host's { wsEndpoint }. The
 * host ends with this process: it watches its stdin, the other end of which only this process holds.
 */
export async function browserHost(engine) {
  const note = join(tmpdir(), `posenc-host-${process.pid}-${engine}.json`);
  try {
    const known = JSON.parse(readFileSync(note, 'utf8'));
    // still ours: alive, and a child of this process (a pid from an earlier process of the same number is not)
    const stat = readFileSync(`/proc/${known.host}/stat`, 'utf8');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) return known;
  } catch { /* none yet, or gone */ }
  const child = spawn(process.execPath, [fileURLToPath(new URL('./browser-host.js', import.meta.url)), engine, String(process.pid), note],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`the ${engine} host did not start in 90 s`)); }, 90000);
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) { clearTimeout(t); resolve(out.slice(0, out.indexOf('\n'))); }
    });
    child.once('exit', (c) => { clearTimeout(t); reject(new Error(`the ${engine} host exited (${c}) before it started`)); });
  });
  child.removeAllListeners('exit');
  child.stdout.destroy();
  // neither the host nor the pipe to it keeps this process alive: when it ends, the pipe closes and the host with it
  child.unref();
  child.stdin.unref();
  const known = { ...JSON.parse(line), host: child.pid };
  writeFileSync(note, JSON.stringify(known));
  return known;
}

/** A page that collects its console errors and uncaught exceptions in `page.errors`. */
function recording(page) {
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.errors = errors;
  return page;
}

/**
 * Headless Chromium. webgpu: with WebGPU on its software adapter (SwiftShader), for the GPU forward's tests.
 * isolated: each newPage() in a context of its own (its own renderer, cache and storage, closed with the page), for a
 * suite whose cases must share nothing but the browser: one launch costs about 5-7 CPU-s here, a context about 1.
 * shared: no launch of its own, but a context in the Chromium this process keeps for its test files (browserHost);
 * close() closes the context and leaves that browser running for the next file. Not with webgpu (other flags), nor
 * when POSENC_SHARED_BROWSERS=0 (a launch per call, as before).
 */
export async function launchBrowser({ webgpu = false, isolated = false, shared = false } = {}) {
  const options = chromiumOptions({ webgpu });
  if (shared && !webgpu && process.env.POSENC_SHARED_BROWSERS !== '0') {
    const { wsEndpoint } = await browserHost('chromium');
    const browser = await chromium.connect(wsEndpoint);
    const single = isolated ? null : await browser.newContext();
    return {
      browser,
      shared: true,
      context: single,
      async newPage() {
        if (single) return recording(await single.newPage());
        const context = await browser.newContext();
        const page = recording(await context.newPage());
        page.once('close', () => context.close().catch(() => {}));
        return page;
      },
      close: () => browser.close(), // a connected browser: closes this file's contexts and disconnects
    };
  }
  if (isolated) {
    const browser = await chromium.launch(options);
    return {
      browser,
      async newPage() {
        const context = await browser.newContext();
        const page = recording(await context.newPage());
        page.once('close', () => context.close().catch(() => {}));
        return page;
      },
      close: () => browser.close(),
    };
  }
  const userDataDir = mkdtempSync(join(tmpdir(), 'posenc-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, options);
  return {
    context,
    async newPage() {
      return recording(await context.newPage());
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
