// Helpers for tests that drive the explorer page.

/** Polls `fn` in the page (page.evaluate, no eval-based waitForFunction) until it returns a truthy value. */
export async function waitFor(page, fn, { timeout = 30000, interval = 100, arg, what = 'condition' } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await page.evaluate(fn, arg);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(interval);
  }
}

export const waitReady = (page) =>
  waitFor(page, () => document.body.dataset.ready === 'true', { what: 'the page to be ready', timeout: 20000 });

/** Every visible row has its maps at the current length. */
export const waitSwept = (page, timeout = 60000) =>
  waitFor(page, () => posenc.state.encodings.every((e) => posenc.client.get(e, posenc.state.length)?.length === posenc.state.length),
    { timeout, what: 'the sweep at the current length' });

/** Every encoding finished training (or loaded a checkpoint). */
export const waitTrained = (page, timeout = 120000) =>
  waitFor(page, () => !posenc.trainer.busy() && [...posenc.trainer.runs.values()].every((r) => ['trained', 'checkpoint'].includes(r.status)),
    { timeout, interval: 250, what: 'training to finish' });

/**
 * Runs in the page (any engine): share of painted pixels and number of distinct colours of each canvas matching
 * `selector`, in the document, or with `host` in each matching element's shadow root too.
 */
export function canvasStatsInPage([selector, host = null]) {
  const scopes = host ? [...document.querySelectorAll(host)].map((h) => h.shadowRoot ?? h) : [document];
  return scopes.flatMap((s) => [...s.querySelectorAll(selector)]).map((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    let painted = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] > 0) painted++;
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    }
    return { label: c.getAttribute('aria-label'), painted: painted / (d.length / 4 || 1), colours: colours.size, w: c.width, h: c.height };
  });
}

/** canvasStatsInPage for a playwright page (`host`: look in these elements' shadow roots). */
export const canvasStats = (page, selector, host) => page.evaluate(canvasStatsInPage, [selector, host]);

/** A cheap fingerprint of a canvas's pixels. */
export const canvasHash = (page, selector) =>
  page.$eval(selector, (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let h = 2166136261;
    for (let i = 0; i < d.length; i += 7) h = Math.imul(h ^ d[i], 16777619);
    return h >>> 0;
  });

/**
 * Runs in the page: "Your model, past its context" once its perplexity figure has all 5 lines and nothing is busy:
 * {facts, opening, tokenizer} (the facts line, the view's opening sentence, the tokenizer's line), or {error} when the
 * view shows one; null while it works. For the harness's page.waitFor.
 */
export function modelFigureInPage() {
  const h = document.querySelector('#your-model .lm-host');
  const error = h?.querySelector('.lm-error');
  if (error && !error.hidden) return { error: error.textContent };
  const c = h?.querySelector('canvas.lm-ppl');
  return c && Number(c.dataset.series) === 5 && h.querySelector('.lm-busy').hidden
    ? { facts: h.querySelector('.lm-facts').textContent, opening: h.querySelector('.lm-source p').textContent, tokenizer: h.querySelector('.lm-tokenizer')?.textContent }
    : null;
}
