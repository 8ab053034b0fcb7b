// Polls `fn` in a browser page until it returns something truthy; throws after `timeoutMs`,
// naming `what` (default: the function's source). Shared by the browser benches.
export async function poll(page, fn, arg, timeoutMs, what = String(fn), intervalMs = 250) {
  const t0 = Date.now();
  for (;;) {
    const v = await page.evaluate(fn, arg);
    if (v) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
