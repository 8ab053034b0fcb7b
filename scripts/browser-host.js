// One browser kept running for the test process that started this script (scripts/browser.js launchBrowser({ shared })
// and scripts/engines.js launchEngine(…, { shared })): the Jest worker's test files each connect to it and work in a
// context of their own, instead of each launching a browser (5-9 CPU-s a launch here, against about 1 for a context).
//   node scripts/browser-host.js chromium|firefox <parent pid> [note file, removed when the host ends]
// Prints one JSON line, { wsEndpoint, pid } (pid: the browser's), then runs until its stdin closes (the parent ended,
// however it ended) or its parent is gone, and then closes the browser.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumOptions } from './browser.js';
import { firefoxOptions } from './engines.js';

const [engine, parentArg, note] = process.argv.slice(2);
const parent = Number(parentArg);
if (!['chromium', 'firefox'].includes(engine) || !(parent > 0)) {
  process.stderr.write('usage: node scripts/browser-host.js chromium|firefox <parent pid>\n');
  process.exit(2);
}

let stop = async () => {};
let stopping = false;
async function end() {
  if (stopping) return;
  stopping = true;
  await Promise.race([stop().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
  if (note) rmSync(note, { force: true });
  process.exit(0);
}

if (engine === 'chromium') {
  const { chromium } = await import('playwright-core');
  const server = await chromium.launchServer(chromiumOptions());
  stop = () => server.close();
  process.stdout.write(`${JSON.stringify({ wsEndpoint: server.wsEndpoint(), pid: server.process().pid })}\n`);
} else {
  // Firefox listening for WebDriver BiDi, launched with puppeteer's preferences; the host ends its own BiDi session at once,
  // since Firefox allows one at a time: each test file opens (and ends) its own through puppeteer.connect, and a Jest
  // worker runs one file at a time.
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = mkdtempSync(join(tmpdir(), 'posenc-firefox-'));
  const browser = await puppeteer.launch({ ...firefoxOptions(), userDataDir: profile });
  const wsEndpoint = browser.wsEndpoint(), ff = browser.process();
  await browser.disconnect();
  stop = async () => {
    if (ff.exitCode === null) {
      const gone = new Promise((r) => ff.once('exit', r));
      ff.kill('SIGTERM');
      await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
      if (ff.exitCode === null) ff.kill('SIGKILL');
    }
    rmSync(profile, { recursive: true, force: true });
  };
  const pid = ff.pid;
  process.stdout.write(`${JSON.stringify({ wsEndpoint, pid })}\n`);
}

process.stdin.on('end', end);
process.stdin.on('close', end);
process.stdin.resume();
process.on('SIGTERM', end);
process.on('SIGINT', end);
setInterval(() => { if (process.ppid !== parent) end(); }, 2000).unref();
