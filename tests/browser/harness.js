// Browser tests: one static server and one browser per suite (scripts/browser.js
// and scripts/engines.js start them; the export CLI uses the same code).
//
//   useBrowser()        headless Chromium through playwright-core; newPage() gives a playwright Page
//                       (with `page.errors`), for the Chromium-only suites.
//   useEngine(engine)   'chromium' | 'firefox' | 'webkit'; newPage() gives the common page API of
//                       scripts/engines.js, the same in every engine:
//                         goto(url) · evaluate(fn, arg) (fn may be async) · waitFor(fn, {arg, timeout, what})
//                         click(selector, nth) · hover(selector, fx, fy, nth) (real mouse move) · dragRange(selector, value, nth) (real mouse drag)
//                         press(...keys) (real key events to the focused element) · setViewport(w, h)
//                         screenshot(name) -> a path under the tmp screenshot dir · errors() -> page errors
//                         raw (the driver's own page object) · engine · version
//                       Selectors may step into open shadow roots with ' >>> '
//                       ('posenc-explorer >>> input.length'). Run a case everywhere with
//                         describe.each(ENGINES)('%s', (engine) => { const b = useEngine(engine); … })
//                       WebKit sessions are capped machine-wide (lock files), so suites may use it freely.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launchBrowser } from '../../scripts/browser.js';
import { ENGINES, launchEngine, screenshotDir, logSession } from '../../scripts/engines.js';

/**
 * Where a test writes the screenshot that docs/ commits (`name`, e.g. 'blog-post.png'): the tmp screenshot dir,
 * or docs/ itself under `npm run docs` (scripts/docs.js sets POSENC_DOCS=1). Tests never write into the tree.
 */
export function docsShot(name) {
  const dir = process.env.POSENC_DOCS === '1' ? fileURLToPath(new URL('../../docs', import.meta.url)) : screenshotDir();
  return join(dir, name);
}

export { startServer, launchBrowser, ENGINES, screenshotDir };

// Chromium and Firefox: each Jest worker keeps one of each, started by its first file that asks, and each test file
// works in a browser context of its own in it (scripts/browser.js browserHost): a launch costs 5-9 CPU-s here, a context
// about 1. POSENC_SHARED_BROWSERS=0: a launch per file, as before. WebKit launches per file (one window per driver,
// and its sessions are capped machine-wide). WebGPU's Chromium has other flags, and launches per file.
// Registers beforeAll/afterAll for a suite: one server and one browser (a context of the worker's shared one).
// Returns an object whose `url` and `newPage()` are ready inside tests; the pages a test opens are closed after it.
// Options: webgpu (Chromium with WebGPU on its software adapter), mounts (startServer's).
export function useBrowser({ webgpu = false, mounts } = {}) {
  const env = {};
  let t0, started;
  beforeAll(async () => {
    env.server = await startServer({ mounts });
    t0 = Date.now();
    env.browser = await launchBrowser({ webgpu, shared: !webgpu });
    started = Date.now();
    env.url = env.server.url;
  });
  afterAll(async () => {
    await env.browser?.close();
    if (env.browser) logSession({ engine: 'chromium', shared: env.browser.shared === true, waitMs: 0, startMs: started - t0, heldMs: Date.now() - t0 });
    await env.server?.close();
  });
  // A page a test opened is closed when the test ends: an explorer left open goes on sweeping its encodings at every
  // length in the background (and animating, when it plays) through the file's later tests.
  const open = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close().catch(() => {})));
  });
  env.newPage = async () => {
    const page = await env.browser.newPage();
    if (expect.getState().currentTestName) open.push(page);
    return page;
  };
  return env;
}

/**
 * One server and one `engine` for a suite. `env.url`, `env.version` and `env.newPage()` are ready inside tests;
 * `env.newPage()` closes the suite's previous page first (WebKit drives one window). `serve: false`: no server
 * (a suite with its own origins; for WebKit, start them with startServer({ recordErrors: true }) to see page errors).
 * `env`: extra environment for WebKit's MiniBrowser (launchEngine). `mounts`: startServer's (extra folders to serve).
 */
export function useEngine(engine, { serve = true, mounts, env: browserEnv, launchTimeout = 16 * 60 * 1000 } = {}) {
  const env = { engine };
  let page = null;
  beforeAll(async () => {
    if (serve) {
      env.server = await startServer({ recordErrors: engine === 'webkit', mounts });
      env.url = env.server.url;
    }
    env.browser = await launchEngine(engine, browserEnv ? { env: browserEnv } : { shared: engine !== 'webkit' }); // WebKit may wait here for another suite's session to end
    env.version = env.browser.version;
  }, launchTimeout);
  afterAll(async () => {
    await page?.close().catch(() => {});
    await env.browser?.close();
    await env.server?.close();
  }, 60000);
  env.newPage = async () => {
    await page?.close().catch(() => {});
    page = await env.browser.newPage();
    return page;
  };
  return env;
}
