// A MiniBrowser that stops answering must fail the WebDriver command that waits on it, not hang the
// suite: scripts/engines.js races every command against a deadline, then kills the browser's whole
// process group. Here the browser is frozen on purpose (SIGSTOP), with short deadlines.
import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { launchEngine } from '../../scripts/engines.js';

jest.setTimeout(16 * 60 * 1000); // may wait for another suite's WebKit session (one at a time)

/** pids of the process group led by `pgid` (WebKitWebDriver, MiniBrowser, its web processes). */
function group(pgid) {
  try {
    return execFileSync('pgrep', ['-g', String(pgid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}
const named = (pids, name) => pids.filter((p) => {
  try {
    return execFileSync('ps', ['-o', 'comm=', '-p', String(p)], { encoding: 'utf8' }).includes(name);
  } catch {
    return false;
  }
});

test('a frozen MiniBrowser fails the command within its deadline, and no process of it is left', async () => {
  const wk = await launchEngine('webkit', { deadlines: { other: 3000, evaluate: 3000 } });
  try {
    const page = await wk.newPage();
    expect(await page.evaluate(() => 6 * 7)).toBe(42); // a working session first
    const browsers = named(group(wk.driverPid), 'MiniBrowser');
    expect(browsers.length).toBe(1);
    process.kill(browsers[0], 'SIGSTOP');
    const t0 = Date.now();
    await expect(page.evaluate(() => 1)).rejects.toThrow(/did not answer in 3 s; the browser was killed/);
    expect(Date.now() - t0).toBeLessThan(20000);
    // the next command fails at once, naming the one that hung
    await expect(page.errors()).rejects.toThrow(/killed after evaluate .* hung/);
    const end = Date.now() + 10000;
    while (group(wk.driverPid).length && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(group(wk.driverPid)).toEqual([]);
  } finally {
    await wk.close();
  }
  // the lock is released: a new session starts and works
  const again = await launchEngine('webkit');
  try {
    expect(await (await again.newPage()).evaluate(() => 'ok')).toBe('ok');
  } finally {
    await again.close();
  }
});
