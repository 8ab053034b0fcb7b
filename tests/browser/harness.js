// Browser tests: one static server and one headless Chromium per suite
// (scripts/browser.js starts them; the export CLI uses the same code).
import { startServer, launchBrowser } from '../../scripts/browser.js';

export { startServer, launchBrowser };

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
