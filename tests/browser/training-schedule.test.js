// Training in the page (issue 17): the page's training Workers share one queue of
// navigator.hardwareConcurrency slots (workers.js), and a training snapshot is swept only at the
// length on screen; the finished model is swept at every length. From a setting with no shipped
// checkpoint (?trainLength=64&seed=17), a few steps each.
import { jest } from '@jest/globals';
import { useBrowser } from './harness.js';
import { waitFor, waitReady } from './page-helpers.js';
import { heldOutStop } from '../../web/app/shared/experiment.js';

jest.setTimeout(420000); // (a shared 2-core machine: a few minutes under load)
const browser = useBrowser();

// Samples, every 20 ms until nothing trains: the most Workers training at once, and for every training
// snapshot on screen, the lengths its sweep holds.
// With `training`, it first sets that cap and restarts the experiment (so the watch sees every Worker start).
const watch = (training) => new Promise((resolve, reject) => {
  const seen = { most: 0, snapshotLengths: new Set(), snapshots: 0, started: false, restarted: false };
  // fails with what it saw instead of waiting for Jest's timeout
  const giveUp = setTimeout(() => {
    clearInterval(tick);
    reject(new Error(`watch: nothing finished in 300 s: ${JSON.stringify({ ...seen, snapshotLengths: undefined,
      runs: [...posenc.trainer.runs].map(([e, r]) => `${e} ${r.status} ${r.step}/${r.steps}${r.worker ? ' (worker)' : ''}`),
      busy: posenc.trainer.busy() })}`));
  }, 300000);
  const tick = setInterval(() => {
    if (training && !seen.restarted) return; // (the page's own first run, stopped below)
    const { trainer, client, state } = posenc;
    const running = [...trainer.runs.values()].filter((r) => r.worker).length;
    seen.most = Math.max(seen.most, running);
    seen.started ||= running > 0;
    for (const [enc, r] of trainer.runs) {
      if (r.status !== 'training' || r.step === 0) continue;
      const src = document.querySelector(`[data-encoding="${enc}"] .source`)?.textContent ?? '';
      if (!/training, step/.test(src)) continue;
      for (const x of client.results(enc)) seen.snapshotLengths.add(x.length);
      seen.snapshots++;
    }
    if (seen.started && !trainer.busy()) {
      clearInterval(tick);
      clearTimeout(giveUp);
      resolve({ most: seen.most, snapshots: seen.snapshots, lengths: [...seen.snapshotLengths], shown: state.length,
        statuses: [...trainer.runs.values()].map((r) => r.status), cores: navigator.hardwareConcurrency,
        grid: posenc.grid().length, swept: state.encodings.map((e) => client.results(e).length) });
    }
  }, 20);
  if (training) {
    import('/app/shared/workers.js').then(async ({ configureWorkers }) => {
      posenc.trainer.stopAll();
      configureWorkers({ training });
      await posenc.controller.begin({ retrain: true });
      seen.restarted = true;
    }).catch((e) => {
      clearInterval(tick);
      clearTimeout(giveUp);
      reject(e);
    });
  }
});

// Enough steps that each run lasts past its first snapshot (the trainer sends one every 2 s): at 60, a run on an
// idle machine could end before it, and the snapshot check below then had nothing to look at.
const STEPS = 200;

test('at most hardwareConcurrency training Workers at once; snapshots swept at the length on screen only', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?trainLength=64&seed=17&steps=${STEPS}&play=0&encodings=rope,alibi,none,t5`);
  await waitReady(page);
  const r = await page.evaluate(watch);
  expect(r.cores).toBeGreaterThanOrEqual(1);
  expect(r.most).toBeGreaterThanOrEqual(Math.min(r.cores, r.statuses.length));
  expect(r.most).toBeLessThanOrEqual(r.cores);
  expect(r.statuses.every((s) => s === 'trained')).toBe(true);
  // STEPS steps of the experiment's budget: the held-out check after the last step does not meet the target, and
  // every place that shows a trained model says so
  const said = await page.evaluate(() => posenc.state.encodings.map((e) => ({ learned: posenc.trainer.runs.get(e).learned,
    row: document.querySelector(`.train-row[data-encoding="${e}"]`).dataset.learned,
    stat: document.querySelector(`.train-row[data-encoding="${e}"] .tstat`).textContent,
    source: document.querySelector(`.sweep-row[data-encoding="${e}"] .source`).textContent })));
  const need = heldOutStop('copy', 17).accuracy.toFixed(3).replace('.', '\\.'); // the experiment's copy target + margin
  for (const x of said) {
    expect(x).toMatchObject({ learned: false });
    expect(x.stat).toMatch(new RegExp(`^ran all ${STEPS} steps · check on new sequences 0\\.\\d{3} < ${need} · loss `));
    expect(x.source).toMatch(new RegExp(`^\\(ran all ${STEPS} steps, check on new sequences 0\\.\\d{3} < ${need}\\)$`));
  }
  // every snapshot row seen held the length on screen only (the play head stood still)
  expect(r.snapshots).toBeGreaterThan(0);
  expect(r.lengths).toEqual([r.shown]);
  // the trained models are swept at every length of the timeline
  await waitFor(page, (n) => posenc.state.encodings.every((e) => posenc.client.results(e).length === n), { arg: r.grid, timeout: 120000,
    what: 'the trained models swept at every length' });
  // one verdict for a model trained here too: the lab's row and the training panel say the same, from the evaluation at
  // the training length on the shipped count of sequences
  const verdicts = await waitFor(page, () => {
    posenc.drawAll();
    const v = posenc.state.encodings.map((e) => [document.querySelector(`.sweep-row[data-encoding="${e}"]`).dataset.learned,
      document.querySelector(`.train-row[data-encoding="${e}"]`).dataset.learned, posenc.evaluations.verdict(e, 'copy', 64).at?.sequences]);
    return v.every(([lab, train]) => lab && train) && v;
  }, { what: 'the verdicts' });
  for (const [lab, train, n] of verdicts) expect([train, n]).toEqual([lab, 64]);
  expect(page.errors).toEqual([]);
});

test('configureWorkers({ training: 1 }) trains one model at a time', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?trainLength=64&seed=17&steps=30&play=0&encodings=rope,alibi,none`);
  await waitReady(page);
  const r = await page.evaluate(watch, 1);
  expect(r.most).toBe(1);
  expect(r.statuses).toEqual(['trained', 'trained', 'trained']);
});
