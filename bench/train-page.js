// Training in the page against training in Node, in one run (issue 17, items 3 and 4).
//
//  A. Engine speed. From a setting with no shipped checkpoint (?trainLength=64&seed=17, the state's
//     steps budget with the experiment's held-out early stop, or --steps N), every encoding of the page trains back to back in this Node process (the request the
//     page's trainer sends, trainer.js trainRequest), then in headless Chromium with the explorer open
//     and sweeping (play on), under each scheduling: training Workers at once = hardwareConcurrency (N,
//     the page's default) or N - 1, and training snapshots swept at the length on screen ('view', the
//     default) or at every length ('all'). Reported: the page's wall time over Node's time per core
//     (Node's total / the Workers that can run at once, capped at the cores), and the sweep's work
//     during training (results and attention cells, sum of T^2).
//  B. Time to learned. The same setting with the experiment's budget (docs/results.json config.steps) and
//     the page's own early stop, the experiment's held-out check (experiment.js heldOutStop, as
//     `npm run train`): wall time from the start until each encoding stops, and whether it met the
//     held-out target (learned) or ran out of budget (not learned).
//
//   nice -n 10 node bench/train-page.js [--only A|B] [--steps N] [--encodings a,b,...] [--cap seconds] [--out file.json]
//   (--encodings: the page's encodings= (default: the page's); --cap: B gives up after this many seconds, default 300)
//
// The machine is shared: the load average is printed with every figure; compare ratios within one run.
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { startServer } from '../scripts/browser.js';
import { launchEngine } from '../scripts/engines.js';
import { loadPosenc } from '../web/lib/index.js';
import { trainRequest } from '../web/app/lab/trainer.js';
import { trainTask, heldOutStop } from '../web/app/shared/experiment.js';
import { poll } from './lib/poll.js';

const argv = process.argv.slice(2);
const arg = (name, def) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : def);
const only = arg('only', null);
const encodingsArg = arg('encodings', null);
const capSeconds = Number(arg('cap', 300));
const SETTING = { trainLength: 64, seed: 17 };
const results = JSON.parse(readFileSync(new URL('../docs/results.json', import.meta.url), 'utf8'));
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const log = (s) => console.log(s);

// The page's state, its experiment and the hardware it sees; its own training is stopped.
async function openPage(browser, url, query) {
  const page = await browser.newPage();
  await page.goto(`${url}/app/?${query}&play=1`);
  await poll(page, () => document.body.dataset.ready === 'true', null, 120000, 'the explorer', 200);
  return page.evaluate(() => {
    const { state, trainer } = window.posenc;
    trainer.stopAll();
    return { state: { ...state }, cores: navigator.hardwareConcurrency };
  }).then((info) => ({ page, ...info }));
}

// Every encoding back to back in Node, with the page's own requests.
async function nodeRun(pe, state, encodings) {
  const out = {};
  for (const enc of encodings) {
    const { model: config, train } = trainRequest(enc, state, { vocabSize: pe.taskInfo(trainTask(state.task)).vocabSize });
    const model = pe.createModel(config);
    const t0 = performance.now();
    const r = await pe.train(model, train);
    out[enc] = { seconds: (performance.now() - t0) / 1000, steps: r.steps, loss: r.loss, accuracy: r.accuracy, stepsToTarget: r.stepsToTarget,
      heldOut: r.heldOut };
    model.delete();
  }
  return out;
}

// One training of every encoding in the page (Workers, sweep playing), under a scheduling.
async function pageRun(page, { training, snapshotSweep, timeoutMs, capMs = Infinity }) {
  await page.evaluate(async ({ training, snapshotSweep }) => {
    const { configureWorkers } = await import('/app/shared/workers.js');
    configureWorkers({ training });
    const { controller } = window.posenc;
    controller.settings.snapshotSweep = snapshotSweep;
    controller.sweepStats.results = 0;
    controller.sweepStats.cells = 0;
    window.__bench = { t0: performance.now(), done: {} };
    const { trainer } = window.posenc;
    const record = (r) => ({ seconds: (performance.now() - window.__bench.t0) / 1000, step: r.step, accuracy: r.accuracy, status: r.status,
      error: r.error, learned: r.learned, stepsToTarget: r.stepsToTarget, heldOut: r.heldOut });
    window.__bench.record = record;
    const poll = setInterval(() => {
      for (const [enc, r] of trainer.runs) {
        if (!window.__bench.done[enc] && ['trained', 'stopped', 'error'].includes(r.status) && window.__bench.started)
          window.__bench.done[enc] = record(r);
      }
    }, 50);
    window.__bench.stop = () => clearInterval(poll);
    await controller.begin({ retrain: true });
    window.__bench.started = true;
  }, { training, snapshotSweep });
  let capped = false;
  try {
    await poll(page, () => window.__bench.started && !window.posenc.trainer.busy(), null, Math.min(timeoutMs, capMs), 'training', 200);
  } catch (e) {
    if (!Number.isFinite(capMs)) throw e;
    capped = true; // B: what has not stopped by the cap did not get there in time
  }
  return page.evaluate((capped) => {
    const { controller, state } = window.posenc;
    if (capped) {
      for (const [enc, r] of window.posenc.trainer.runs) if (!window.__bench.done[enc]) window.__bench.done[enc] = { ...window.__bench.record(r), seconds: Infinity, status: `${r.status} at the cap` };
      window.posenc.trainer.stopAll();
    }
    window.__bench.stop();
    const { trainer } = window.posenc;
    for (const [enc, r] of trainer.runs) // (finished between two polls)
      window.__bench.done[enc] ??= window.__bench.record(r);
    return { wall: (performance.now() - window.__bench.t0) / 1000, runs: window.__bench.done, sweep: { ...controller.sweepStats }, play: state.play, capped };
  }, capped);
}

const fmt = (x, d = 2) => x.toFixed(d);

async function main() {
  const server = await startServer();
  const browser = await launchEngine('chromium');
  const report = { machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, chromium: browser.version } };
  log(`posenc: training in the page vs Node. ${report.machine.cpus} cores (${report.machine.model}), Node ${process.version}, ${browser.version}`);
  try {
    const pe = await loadPosenc();
    if (only !== 'B') {
      const steps = Number(arg('steps', 0)) || null;
      const query = `trainLength=${SETTING.trainLength}&seed=${SETTING.seed}${steps ? `&steps=${steps}` : ''}${encodingsArg ? `&encodings=${encodingsArg}` : ''}`;
      const { page, state, cores } = await openPage(browser, server.url, query);
      const encodings = state.encodings;
      log(`\n== A. engine speed: ?${query} (${state.task}, ${state.steps} steps, T=${state.trainLength}), ${encodings.length} encodings, hardwareConcurrency ${cores}`);
      const node = nodeRun.bind(null, pe, state, encodings);
      const runs = [];
      const nodeA = { load: load(), runs: await node() };
      const nodeTotal = (n) => Object.values(n.runs).reduce((a, r) => a + r.seconds, 0);
      log(`Node back to back: ${fmt(nodeTotal(nodeA))} s (load ${nodeA.load})`);
      for (const [training, snapshotSweep] of [[cores, 'view'], [cores, 'follow'], [cores, 'all'], [Math.max(1, cores - 1), 'view']]) {
        const l0 = load();
        const r = await pageRun(page, { training, snapshotSweep, timeoutMs: 600000 });
        runs.push({ training, snapshotSweep, load: l0, ...r });
        log(`page, ${training} training Workers, snapshots swept ${{ view: 'at the length on screen', follow: 'at each length the playhead reaches', all: 'at every length' }[snapshotSweep]}: ` +
          `${fmt(r.wall)} s wall, sweep ${r.sweep.results} results / ${(r.sweep.cells / 1e6).toFixed(2)} M cells (load ${l0})`);
      }
      const nodeB = { load: load(), runs: await node() };
      log(`Node back to back again: ${fmt(nodeTotal(nodeB))} s (load ${nodeB.load})`);
      const nodeSeconds = (nodeTotal(nodeA) + nodeTotal(nodeB)) / 2;
      for (const r of runs) {
        r.perCoreNode = nodeSeconds / Math.min(r.training, cores);
        r.ratio = r.wall / r.perCoreNode;
      }
      log('\n| training Workers | snapshot sweep | page wall | Node per core | ratio | sweep results | sweep cells (M) |\n|---:|---|---:|---:|---:|---:|---:|');
      for (const r of runs)
        log(`| ${r.training} | ${r.snapshotSweep} | ${fmt(r.wall)} s | ${fmt(r.perCoreNode)} s | ${fmt(r.ratio)}x | ${r.sweep.results} | ${(r.sweep.cells / 1e6).toFixed(2)} |`);
      report.A = { query, cores, encodings, steps: state.steps, node: [nodeA, nodeB], nodeSeconds, page: runs };
      await page.raw.close?.();
    }
    if (only !== 'A') {
      const steps = results.config.steps;
      const query = `trainLength=${SETTING.trainLength}&seed=${SETTING.seed}&steps=${steps}${encodingsArg ? `&encodings=${encodingsArg}` : ''}`;
      const { page, state, cores } = await openPage(browser, server.url, query);
      const rule = heldOutStop(state.task, state.seed);
      log(`\n== B. time to learned: ?${query}, budget ${state.steps} steps, held-out early stop ${JSON.stringify(rule)}, ${cores} training Workers`);
      const l0 = load();
      const r = await pageRun(page, { training: cores, snapshotSweep: 'view', timeoutMs: 900000, capMs: capSeconds * 1000 });
      log(`(load ${l0} at the start, ${load()} at the end)`);
      log('\n| encoding | learned (held-out target met) | stopped at step | held-out accuracy | held-out loss | wall time from start | within 60 s |\n|---|---|---:|---:|---:|---:|---|');
      for (const enc of state.encodings) {
        const x = r.runs[enc];
        const reached = x && Number.isFinite(x.seconds) && x.learned === true;
        log(`| ${enc} | ${x?.learned == null ? `(${x?.status})` : x.learned ? 'yes' : 'no'} | ${x?.step} | ${fmt(x?.heldOut?.accuracy ?? NaN, 3)} | ` +
          `${fmt(x?.heldOut?.loss ?? NaN, 3)} | ${fmt(x?.seconds ?? NaN, 1)} s | ${reached ? (x.seconds <= 60 ? 'yes' : 'no') : '(n/a)'} |`);
      }
      report.B = { query, cores, rule, load: l0, ...r };
      await page.raw.close?.();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const out = arg('out', null);
  if (out) writeFileSync(out, JSON.stringify(report, null, 1));
}

await main();
