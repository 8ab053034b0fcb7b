// Headless Chromium (Debian's, driven by playwright-core) and the project's
// own static server on a free localhost port.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '../../scripts/serve.js';

export async function startServer() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

export async function launchBrowser() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'posenc-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    async newPage() {
      const page = await context.newPage();
      const errors = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(String(e)));
      page.errors = errors;
      return page;
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

// Registers beforeAll/afterAll for a suite: one server and one browser.
// Returns an object whose `url` and `newPage()` are ready inside tests.
export function useBrowser() {
  const env = {};
  beforeAll(async () => {
    env.server = await startServer();
    env.browser = await launchBrowser();
    env.url = env.server.url;
  });
  afterAll(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  env.newPage = () => env.browser.newPage();
  return env;
}
