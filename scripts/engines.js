// One small page API over three engines, for tests that run the same case in
// Chromium, Firefox and WebKit (tests/browser/harness.js useEngine):
//   chromium  Debian's /usr/bin/chromium through playwright-core (scripts/browser.js launchBrowser)
//   firefox   Debian's Firefox ESR through puppeteer-core over WebDriver BiDi (no geckodriver)
//   webkit    WebKitGTK's MiniBrowser through WebKitWebDriver and selenium-webdriver, on a private
//             Xvfb display; this module starts and stops both, and caps the WebKit sessions running
//             at once machine-wide (lockWebKit).
// Every input goes through the engine's real input pipeline (mouse and key events from the driver).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, writeFileSync, unlinkSync, appendFileSync } from 'node:fs';
import { createServer as netServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, browserHost, ERROR_RECORDER } from './browser.js';

export const ENGINES = ['chromium', 'firefox', 'webkit'];
const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const VIEWPORT = { width: 1280, height: 900 };

/** Where tests write screenshots: never the tree (a fresh directory under the system tmp dir, kept for a look). */
let shotDir = null;
export function screenshotDir() {
  shotDir ??= mkdtempSync(join(tmpdir(), 'posenc-shots-'));
  return shotDir;
}

// Runs in the page (sent by each driver as source, so it must be self-contained): the element a
// selector names (' >>> ' steps into an open shadow root), scrolled into view, with its box in
// viewport CSS px and, for a range input, its value range.
function boxInPage([selector, nth, noScroll]) {
  let scope = document, el = null;
  const parts = selector.split('>>>').map((s) => s.trim());
  for (let i = 0; i < parts.length && scope; i++) {
    const all = scope.querySelectorAll(parts[i]);
    el = i === parts.length - 1 ? all[nth] : all[0];
    scope = el?.shadowRoot ?? el;
  }
  if (!el) return null;
  if (!noScroll) el.scrollIntoView({ block: 'center', inline: 'center' });
  const r = el.getBoundingClientRect();
  return { x: r.left, y: r.top, w: r.width, h: r.height, min: Number(el.min), max: Number(el.max), value: Number(el.value) };
}

/** The viewport x of a range input's thumb at `value` (the thumb is about 16 px wide in every engine). */
function thumbX(box, value) {
  const f = (value - box.min) / (box.max - box.min || 1);
  const thumb = Math.min(16, box.w / 4);
  return box.x + thumb / 2 + Math.max(0, Math.min(1, f)) * (box.w - thumb);
}

class EnginePage {
  constructor(engine, version) {
    this.engine = engine;
    this.version = version;
  }

  /** Calls `fn(arg)` in the page (it may be async) and returns its (JSON-serialisable) result. */
  async evaluate(fn, arg) { throw new Error(`evaluate not implemented for ${this.engine} (${fn}, ${arg})`); }

  /** Polls `fn(arg)` in the page until it returns a truthy value, and returns that value. */
  async waitFor(fn, { arg, timeout = 30000, interval = 100, what = 'condition' } = {}) {
    const end = Date.now() + timeout;
    for (;;) {
      const v = await this.evaluate(fn, arg);
      if (v) return v;
      if (Date.now() > end) throw new Error(`${this.engine}: timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, interval));
    }
  }

  /** The element's box (scrolled into view first); throws if the selector matches nothing. */
  async box(selector, nth = 0) {
    const b = await this.evaluate(boxInPage, [selector, nth]);
    if (!b) throw new Error(`${this.engine}: no element matches ${selector}${nth ? ` [${nth}]` : ''}`);
    return b;
  }

  /**
   * A real mouse click at the centre of the element, once it has stopped moving (as Playwright waits for): after
   * the scroll, content above it may still be laying out (rows drawn as they come into view) and move it.
   */
  async click(selector, nth = 0) {
    const b = await this.stableBox(selector, nth);
    await this.mouseClick(Math.round(b.x + b.w / 2), Math.round(b.y + b.h / 2));
  }

  /**
   * The element's box once it has stopped moving: scrolled into view first, then unchanged over 2 polls 120 ms
   * apart (at most 4 s). Sections drawn as they come into view may grow above it after the scroll, and WebKit
   * (no scroll anchoring) then moves it down; under load that can take several hundred ms.
   */
  async stableBox(selector, nth = 0) {
    let b = await this.box(selector, nth);
    for (let i = 0, same = 0; i < 35 && same < 2; i++) {
      await new Promise((r) => setTimeout(r, 120));
      const now = await this.evaluate(boxInPage, [selector, nth, true]);
      if (!now) break;
      same = now.x === b.x && now.y === b.y && now.w === b.w && now.h === b.h ? same + 1 : 0;
      b = now;
    }
    return b;
  }

  /** A real mouse move to the point (fx, fy) of the element's box (fractions of its width and height; default its centre). */
  async hover(selector, fx = 0.5, fy = 0.5, nth = 0) {
    const b = await this.stableBox(selector, nth);
    await this.mouseMove(Math.round(b.x + fx * b.w), Math.round(b.y + fy * b.h));
  }

  /** Drags a range input's thumb with the mouse (press on the thumb, move in steps, release) to about `value`. */
  async dragRange(selector, value, nth = 0) {
    const b = await this.stableBox(selector, nth);
    const y = Math.round(b.y + b.h / 2);
    const from = Math.round(thumbX(b, b.value)), to = Math.round(thumbX(b, value));
    await this.mouseDrag(from, to, y, 8);
  }

  /** Presses keys ('ArrowRight', 'Home', ' ', …) one after the other, to the focused element. */
  async press(...keys) {
    for (const k of keys) await this.key(k);
  }

  /** A viewport screenshot written to the tmp screenshot dir; returns its path. */
  async screenshot(name) {
    const path = join(screenshotDir(), `${this.engine}-${name}.png`);
    writeFileSync(path, await this.png());
    return path;
  }
}

// ---------- Chromium (playwright-core) and Firefox (puppeteer-core): the same mouse/keyboard/screenshot API ----------
class PuppetPage extends EnginePage {
  constructor(engine, raw, version) {
    super(engine, version);
    this.raw = raw;
  }
  evaluate(fn, arg) { return this.raw.evaluate(fn, arg); }
  mouseClick(x, y) { return this.raw.mouse.click(x, y); }
  mouseMove(x, y) { return this.raw.mouse.move(x, y, { steps: 4 }); }
  async mouseDrag(x0, x1, y, steps) {
    await this.raw.mouse.move(x0, y);
    await this.raw.mouse.down();
    await this.raw.mouse.move(x1, y, { steps });
    await this.raw.mouse.up();
  }
  key(k) { return this.raw.keyboard.press(k === ' ' ? 'Space' : k); }
  png() { return this.raw.screenshot(); }
  close() { return this.raw.close(); }
}

class ChromiumPage extends PuppetPage {
  constructor(raw, version) { super('chromium', raw, version); }
  goto(url) { return this.raw.goto(url); }
  setViewport(width, height) { return this.raw.setViewportSize({ width, height }); }
  async errors() { return [...this.raw.errors]; } // scripts/browser.js collects them
}

async function launchChromium({ shared = false } = {}) {
  const b = await launchBrowser({ shared });
  const version = (b.browser ?? b.context.browser())?.version() ?? execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim();
  return {
    engine: 'chromium', version, shared: b.shared === true,
    async newPage() {
      const raw = await b.newPage();
      await raw.setViewportSize(VIEWPORT);
      return new ChromiumPage(raw, version);
    },
    close: () => b.close(),
  };
}

// ---------- Firefox (puppeteer-core, WebDriver BiDi) ----------
class FirefoxPage extends PuppetPage {
  constructor(raw, version) {
    super('firefox', raw, version);
    this.errs = [];
    raw.on('pageerror', (e) => this.errs.push(String(e?.message ?? e)));
    raw.on('console', (m) => m.type() === 'error' && this.errs.push(m.text()));
  }
  goto(url) { return this.raw.goto(url, { waitUntil: 'load' }); }
  setViewport(width, height) { return this.raw.setViewport({ width, height }); }
  async errors() { return [...this.errs]; }
}

/** puppeteer's launch options for Firefox (scripts/browser-host.js launches with them too). */
export function firefoxOptions() {
  return {
    browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true, defaultViewport: VIEWPORT,
    // no network beyond loopback: no updates, telemetry, captive-portal or remote-settings requests
    extraPrefsFirefox: { 'app.update.enabled': false, 'network.captive-portal-service.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false, 'toolkit.telemetry.enabled': false, 'browser.safebrowsing.malware.enabled': false,
      'browser.safebrowsing.phishing.enabled': false, 'network.connectivity-service.enabled': false },
  };
}

// shared: a BiDi session of its own, and a browser context of its own, in the Firefox this process keeps for its test
// files (scripts/browser.js browserHost); close() closes the context and ends the session, and Firefox runs on.
async function launchFirefox({ shared = false } = {}) {
  const { default: puppeteer } = await import('puppeteer-core');
  if (shared && process.env.POSENC_SHARED_BROWSERS !== '0') {
    const { wsEndpoint } = await browserHost('firefox');
    const browser = await puppeteer.connect({ browserWSEndpoint: wsEndpoint, protocol: 'webDriverBiDi', defaultViewport: VIEWPORT });
    const context = await browser.createBrowserContext();
    const version = await browser.version();
    return {
      engine: 'firefox', version, shared: true,
      async newPage() { return new FirefoxPage(await context.newPage(), version); },
      async close() {
        await context.close().catch(() => {});
        await browser.disconnect();
      },
    };
  }
  const browser = await puppeteer.launch(firefoxOptions());
  const version = await browser.version();
  return {
    engine: 'firefox', version,
    async newPage() { return new FirefoxPage(await browser.newPage(), version); },
    close: () => browser.close(),
  };
}

// ---------- WebKit (MiniBrowser, WebKitWebDriver, selenium-webdriver) ----------
// Each session has its own Xvfb display and WebKitWebDriver port, so sessions can run side by side; a machine-wide
// count of lock files caps them at WEBKIT_SESSIONS, so that parallel test runs on one machine (worktrees) queue
// rather than overload it. Two at once were seen to work (2026-12-05), but in a whole `npm test` on 2 cores the extra
// load made timing-bound cases fail (a click on Play/Pause in WebKit not taken, a WebM export dropping frames), so
// the default stays one; POSENC_WEBKIT_SESSIONS=2 allows two on a machine with cores to spare.
const WEBKIT_SESSIONS = Math.max(1, Number(process.env.POSENC_WEBKIT_SESSIONS) || 1);
const lockPath = (slot) => join(tmpdir(), `posenc-webkit.${slot}.lock`);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };

/** Waits for one of the machine-wide WebKit slots (a file holding the owner's pid; a dead owner's slot is taken over). */
async function lockWebKit(timeout = 15 * 60 * 1000) {
  const end = Date.now() + timeout;
  for (;;) {
    const owners = [];
    for (let slot = 0; slot < WEBKIT_SESSIONS; ++slot) {
      const lock = lockPath(slot);
      try {
        const fd = openSync(lock, 'wx');
        writeFileSync(fd, String(process.pid));
        closeSync(fd);
        const release = () => { try { if (readFileSync(lock, 'utf8') === String(process.pid)) unlinkSync(lock); } catch { /* gone */ } };
        process.once('exit', release);
        return release;
      } catch (e) {
        if (e.code !== 'EEXIST') throw e;
        let owner = 0;
        try { owner = Number(readFileSync(lock, 'utf8')); } catch { continue; }
        if (owner && !alive(owner)) { try { unlinkSync(lock); } catch { /* raced */ } }
        owners.push(owner);
      }
    }
    if (Date.now() > end) throw new Error(`webkit: every WebKit slot (${WEBKIT_SESSIONS}) is held, by processes ${owners.join(', ')}, for too long`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const freePort = () => new Promise((resolve, reject) => {
  const s = netServer().once('error', reject).listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});

/** Starts Xvfb on a display it picks itself (-displayfd); resolves to { display, stop }. */
function startXvfb() {
  return new Promise((resolve, reject) => {
    const p = own(spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1600x1200x24', '-nolisten', 'tcp'],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] }));
    let out = '', err = '';
    p.stderr.on('data', (d) => { err += d; });
    p.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ display: `:${out.trim()}`, stop: () => stopChild(p) });
    });
    p.once('error', reject);
    p.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${err.slice(-400)}`)));
  });
}

/**
 * A child process that is killed when this process exits, whatever ends it. `group`: it leads a process
 * group (spawned detached), and signals go to the whole group.
 */
function own(p, group = false) {
  const signal = (sig) => { try { process.kill(group ? -p.pid : p.pid, sig); } catch { /* already gone */ } };
  p.signal = signal;
  const kill = () => signal('SIGKILL');
  process.once('exit', kill);
  p.once('exit', () => process.removeListener('exit', kill));
  return p;
}

function stopChild(p) {
  if (p.exitCode !== null || p.signalCode) {
    p.signal('SIGKILL'); // the group's other members (a browser the driver left behind)
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const t = setTimeout(() => p.signal('SIGKILL'), 3000);
    p.once('exit', () => { clearTimeout(t); p.signal('SIGKILL'); resolve(); });
    p.signal('SIGTERM');
  });
}

// WebKitWebDriver leads its own process group (detached), so that stopping it also ends the MiniBrowser
// and WebKitWebProcess it started: a hung browser cannot outlive its test.
async function startWebKitDriver(display, env = {}) {
  const port = await freePort();
  const p = own(spawn('WebKitWebDriver', [`--port=${port}`, '--host=127.0.0.1'],
    { env: { ...process.env, ...env, DISPLAY: display }, stdio: ['ignore', 'ignore', 'pipe'], detached: true }), true);
  let err = '';
  p.stderr.on('data', (d) => { err += d; });
  const end = Date.now() + 15000;
  for (;;) {
    if (p.exitCode !== null) throw new Error(`WebKitWebDriver exited (${p.exitCode}): ${err.slice(-400)}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/status`);
      if (r.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > end) throw new Error(`WebKitWebDriver did not start: ${err.slice(-400)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `http://127.0.0.1:${port}`, pid: p.pid, stop: () => stopChild(p), kill: () => p.signal('SIGKILL') };
}

// WebDriver commands have no client-side timeout: a MiniBrowser whose web process never starts (seen
// once: 0 s of CPU, no WebKitWebProcess) leaves a command waiting forever, and Jest with it. Each
// command is therefore raced against a deadline; on expiry the browser is killed and the command fails
// with what it was doing. The deadlines sit above the driver's own script (300 s) and page-load (60 s) ones.
const SCRIPT_MS = 300000, PAGE_LOAD_MS = 60000;
const DEADLINE_MS = { evaluate: SCRIPT_MS + 30000, goto: PAGE_LOAD_MS + 30000, other: 60000, start: 45000 };

function watchdog(onHang, deadlines) {
  let dead = null;
  return async function guard(what, kind, run) {
    const ms = deadlines[kind];
    if (dead) throw new Error(`webkit: ${what}: the browser was killed after ${dead} hung`);
    let timer;
    const hung = new Promise((_, reject) => {
      timer = setTimeout(() => {
        dead = what;
        onHang();
        reject(new Error(`webkit: ${what} did not answer in ${ms / 1000} s; the browser was killed`));
      }, ms);
    });
    try {
      return await Promise.race([run(), hung]);
    } finally {
      clearTimeout(timer);
    }
  };
}

const KEYS = { ArrowRight: '\uE014', ArrowLeft: '\uE012', ArrowUp: '\uE013', ArrowDown: '\uE015', Home: '\uE011', End: '\uE010',
  PageUp: '\uE00E', PageDown: '\uE00F', Enter: '\uE007', Tab: '\uE004', Escape: '\uE00C', ' ': ' ' };

class WebKitPage extends EnginePage {
  constructor(driver, version, guard) {
    super('webkit', version);
    this.raw = driver;
    this.guard = guard;
  }
  /** `run()` (WebDriver commands), failing after the deadline of its kind instead of waiting forever. */
  command(what, run, kind = 'other') { return this.guard(what, kind, run); }
  goto(url) {
    return this.command(`goto ${url}`, async () => {
      await this.raw.get(url);
      // a page not served with the recorder (file://, a route): record from here on
      await this.raw.executeScript(`if (!window.__posencErrors) { ${ERROR_RECORDER} }`);
    }, 'goto');
  }
  async evaluate(fn, arg) {
    const r = await this.command(`evaluate ${String(fn).slice(0, 60)}`, () => this.raw.executeAsyncScript(`const done = arguments[arguments.length - 1];
      Promise.resolve().then(() => (${fn})(arguments[0])).then((value) => done({ value: value === undefined ? null : value }),
        (e) => done({ error: String(e && e.stack || e) }));`, arg === undefined ? null : arg), 'evaluate');
    if (r?.error) throw new Error(`webkit: evaluate failed: ${r.error}`);
    return r?.value;
  }
  setViewport(width, height) {
    // the window includes MiniBrowser's toolbar: size it, then correct by what the page sees
    return this.command('setViewport', async () => {
      const win = this.raw.manage().window();
      await win.setRect({ width, height, x: 0, y: 0 });
      const inner = await this.raw.executeScript('return [innerWidth, innerHeight]');
      await win.setRect({ width: width + (width - inner[0]), height: height + (height - inner[1]) });
    });
  }
  perform(what, chain) { return this.command(what, () => chain(this.raw.actions({ async: true })).perform()); }
  mouseClick(x, y) { return this.perform('click', (a) => a.move({ x, y, duration: 0 }).press().release()); }
  mouseMove(x, y) { return this.perform('mouse move', (a) => a.move({ x, y, duration: 50 })); }
  mouseDrag(x0, x1, y, steps) {
    return this.perform('drag', (a) => {
      a = a.move({ x: x0, y, duration: 0 }).press();
      for (let i = 1; i <= steps; i++) a = a.move({ x: Math.round(x0 + ((x1 - x0) * i) / steps), y, duration: 20 });
      return a.release();
    });
  }
  key(k) {
    const code = KEYS[k] ?? k;
    return this.perform(`key ${k}`, (a) => a.keyDown(code).keyUp(code));
  }
  async png() { return Buffer.from(await this.command('screenshot', () => this.raw.takeScreenshot()), 'base64'); }
  async errors() { return (await this.command('errors', () => this.raw.executeScript('return window.__posencErrors || []'))) ?? []; }
  async close() { await this.command('close', () => this.raw.get('about:blank')).catch(() => {}); }
}

async function startWebKit(env, deadlines) {
  const started = [];
  const stopAll = async () => { for (const s of started.reverse()) await s.stop(); };
  try {
    const xvfb = await startXvfb();
    started.push(xvfb);
    const server = await startWebKitDriver(xvfb.display, env); // MiniBrowser inherits its environment
    started.push(server);
    const guard = watchdog(() => server.kill(), deadlines);
    const { Builder } = await import('selenium-webdriver');
    // the session and a first page: the steps a browser that fails to start hangs in
    const { driver, version } = await guard('start MiniBrowser', 'start', async () => {
      const d = await new Builder().usingServer(server.url).withCapabilities({
        browserName: 'MiniBrowser',
        'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
      }).build();
      const caps = await d.getCapabilities();
      await d.manage().setTimeouts({ script: SCRIPT_MS, pageLoad: PAGE_LOAD_MS });
      await d.get('about:blank');
      return { driver: d, version: `MiniBrowser (WebKitGTK ${caps.get('browserVersion')})` };
    });
    return { driver, version, guard, stop: stopAll, pid: server.pid };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

async function launchWebKit({ env, deadlines } = {}) {
  const ms = { ...DEADLINE_MS, ...deadlines };
  const release = await lockWebKit();
  const lockedAt = Date.now();
  let b;
  try {
    try {
      b = await startWebKit(env, ms);
    } catch (e) {
      // once more: a MiniBrowser that did not start is rare and does not repeat
      process.stderr.write(`posenc: ${e.message}; starting WebKit again\n`);
      b = await startWebKit(env, ms);
    }
  } catch (e) {
    release();
    throw e;
  }
  const { driver, version, guard } = b;
  let page = null;
  return {
    engine: 'webkit', version, lockedAt,
    /** The WebKitWebDriver's pid: it leads the process group of the browser. */
    driverPid: b.pid,
    /** WebKitWebDriver drives one window: a new page is that window, cleared. */
    async newPage() {
      if (!page) {
        page = new WebKitPage(driver, version, guard);
        await page.setViewport(VIEWPORT.width, VIEWPORT.height);
      }
      await page.command('new page', () => driver.get('about:blank'));
      return page;
    },
    async close() {
      await guard('quit', 'other', () => driver.quit()).catch(() => {});
      await b.stop();
      release();
    },
  };
}

/**
 * Launches one engine; resolves to { engine, version, newPage(), close() }. options.env (WebKit only): extra
 * environment for MiniBrowser, e.g. { JSC_useWasmSIMD: 'false' } to run the scalar wasm fallback.
 * options.deadlines (WebKit only): ms per kind of WebDriver command ({evaluate, goto, other, start}) after
 * which the browser is killed and the command fails. options.shared (Chromium and Firefox): a context in the browser
 * this process keeps for its test files, instead of a launch (scripts/browser.js browserHost).
 */
export async function launchEngine(engine, options = {}) {
  const launch = { chromium: launchChromium, firefox: launchFirefox, webkit: launchWebKit }[engine];
  if (!launch) throw new RangeError(`engine must be one of ${ENGINES.join(', ')}; got ${engine}`);
  for (const k of ['env', 'deadlines'])
    if (options[k] && engine !== 'webkit') throw new RangeError(`options.${k} is for webkit only; got it for ${engine}`);
  if (options.shared && engine === 'webkit') throw new RangeError('options.shared is for chromium and firefox only; got it for webkit');
  const t0 = Date.now();
  const b = await launch(options);
  const started = Date.now(), close = b.close;
  b.close = async () => {
    await close();
    logSession({ engine, shared: b.shared === true, waitMs: b.lockedAt ? b.lockedAt - t0 : 0, startMs: started - (b.lockedAt ?? t0), heldMs: Date.now() - (b.lockedAt ?? t0) });
  };
  return b;
}

/**
 * Where the suite's time goes (scripts/test.js sets POSENC_TIMINGS to a file in the system tmp dir and sums it up after
 * Jest): one JSON line per browser session, with its test file, whether it was a context in the worker's shared browser,
 * the time waited for a WebKit slot, the launch (or the connection) and the time the session was held.
 */
export function logSession(entry) {
  const file = process.env.POSENC_TIMINGS;
  if (!file) return;
  const testPath = globalThis.expect?.getState?.().testPath ?? process.argv[1] ?? '';
  try {
    appendFileSync(file, `${JSON.stringify({ file: testPath.replace(/^.*?\/tests\//, 'tests/'), ...entry })}\n`);
  } catch { /* a summary only: never fails a test */ }
}
