// The animation budget: what the explorer costs per frame at T = 512 with every
// encoding that ships a checkpoint visible, in headless Chromium. Two figures:
//  - the main thread's work per frame (web/app/shared/perf.js: the time spent in the
//    frame callback), redrawing every row at T = 512 on every frame (the length
//    alternates between the grid's last two lengths, 496 and 512);
//  - the Worker's work to make one length's pictures: for every encoding, the
//    sweep core (web/app/lab/sweep-core.js) evaluates the shipped checkpoint at
//    T = 512 (evalBatch(512) = 2 sequences, the attention maps of the drawn layer only, pooled to pictures in
//    the module) and colours them, all heads.
//    It runs once per length and is cached, so it is not part of a frame;
//  - the latency of one new length for all encodings through the sweep client and its pool of
//    sweep Workers (1 and the page's default, min(2, hardwareConcurrency)), with the load average.
//
//   node bench/explorer.js        (also run by bench/run.js)
import { readFileSync } from 'node:fs';
import { startServer, launchBrowser } from '../tests/browser/harness.js';
import { ENCODINGS as REGISTERED } from '../web/lib/index.js';
import { poll } from './lib/poll.js';
import { evalBatch } from '../web/app/lab/sweep-core.js';

const T = 512;
// The registry's encodings that ship a checkpoint of the page's default task (the others would train first).
const shipped = JSON.parse(readFileSync(new URL('../web/checkpoints/index.json', import.meta.url), 'utf8'));
const ENCODINGS = REGISTERED.filter((e) => shipped.includes(`copy-${e}.ckpt`));

async function mainThread(browser, url) {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${url}/?perf=1&play=0&length=${T}`);
  await poll(page, () => document.body.dataset.ready === 'true', null, 60000);
  // every encoding's pictures at the last two lengths of the grid
  await poll(page, ({ T, encs }) => encs.every((e) => window.posenc.client.fresh(e, T) && window.posenc.client.fresh(e, T - 16)),
    { T, encs: ENCODINGS }, 180000);
  const stats = await page.evaluate(async (T) => {
    const { posenc } = window;
    posenc.perf.reset();
    let n = 0;
    await new Promise((resolve) => {
      const tick = () => {
        posenc.setLength(n++ % 2 ? T - 16 : T); // a change of length redraws every row
        if (n < 240) requestAnimationFrame(tick);
        else resolve();
      };
      requestAnimationFrame(tick);
    });
    return { ...posenc.perf.stats(), rows: document.querySelectorAll('.sweep-row').length, heads: posenc.state.head };
  }, T);
  if (page.errors.length) throw new Error(`explorer errors: ${page.errors.join('; ')}`);
  await page.close();
  return stats;
}

async function worker(browser, url) {
  const page = await browser.newPage();
  await page.goto(`${url}/app/blank.html`);
  const r = await page.evaluate(async ({ T, encs }) => {
    const { loadPosenc } = await import('/lib/index.js');
    const { createSweepCore } = await import('/app/lab/sweep-core.js');
    const pe = loadPosenc();
    let resolveResult;
    const handle = createSweepCore(() => pe, (msg) => msg.type === 'result' && resolveResult(msg));
    const lut = new Uint8Array(256 * 3).map((_, i) => i % 256);
    await handle({ type: 'init', lut, maxPx: 192 });
    for (const enc of encs) {
      const bytes = new Uint8Array(await (await fetch(`/checkpoints/copy-${enc}.ckpt`)).arrayBuffer());
      await handle({ type: 'model', encoding: enc, bytes });
    }
    const once = async (enc, gen, seed) => {
      const done = new Promise((r) => (resolveResult = r));
      const t0 = performance.now();
      await handle({ type: 'sweep', encoding: enc, gen, lengths: [T], scaling: null, layer: 0, head: -1, task: 'copy', seed });
      const msg = await done;
      msg.bitmaps.forEach((b) => b.close());
      return performance.now() - t0;
    };
    for (const enc of encs) await once(enc, 0, 1); // warm-up
    const rounds = [];
    for (let k = 0; k < 5; k++) {
      const per = {};
      for (const enc of encs) per[enc] = await once(enc, k + 1, k + 2);
      rounds.push(per);
    }
    return rounds;
  }, { T, encs: ENCODINGS });
  await page.close();
  const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  const perEncoding = Object.fromEntries(ENCODINGS.map((e) => [e, +median(r.map((x) => x[e])).toFixed(1)]));
  return { perEncoding, total: +median(r.map((x) => Object.values(x).reduce((a, b) => a + b, 0))).toFixed(1) };
}

// The latency the page sees: a new length asked of every encoding at once, through the sweep client
// (web/app/lab/sweep-client.js) and its sweep Worker pool, until the last encoding's pictures are back.
// Pools of 1 and of the page's default size (workers.js sweepConcurrency()), interleaved round by round.
async function latency(browser, url) {
  const page = await browser.newPage();
  await page.goto(`${url}/app/blank.html`);
  const r = await page.evaluate(async ({ T, encs }) => {
    const { createSweepClient } = await import('/app/lab/sweep-client.js');
    const { sweepConcurrency } = await import('/app/shared/workers.js');
    const bytes = Object.fromEntries(await Promise.all(encs.map(async (e) =>
      [e, new Uint8Array(await (await fetch(`/checkpoints/copy-${e}.ckpt`)).arrayBuffer())])));
    const lut = new Uint8Array(256 * 3).map((_, i) => i % 256);
    const sizes = [...new Set([1, sweepConcurrency()])];
    const pools = [];
    for (const n of sizes) {
      let wake = () => {};
      const client = createSweepClient({ lut, workers: n, onUpdate: () => wake(), onError: (e, m) => console.error(e, m) });
      encs.forEach((e) => client.setModel(e, { bytes: bytes[e].slice() }));
      const until = (done) => new Promise((resolve) => {
        wake = () => done() && resolve();
        wake();
      });
      await until(() => encs.every((e) => client.info(e)));
      pools.push({ n, client, until, times: [] });
    }
    const round = async (pool, seed) => {
      const t0 = performance.now();
      for (const e of encs) pool.client.request(e, { lengths: [T], scaling: null, layer: 0, head: -1, task: 'copy', seed });
      await pool.until(() => encs.every((e) => pool.client.fresh(e, T)));
      return performance.now() - t0;
    };
    for (const pool of pools) await round(pool, 1); // warm-up (JIT tier-up in every Worker)
    for (let k = 0; k < 7; k++) for (const pool of pools) pool.times.push(await round(pool, k + 2));
    pools.forEach((p) => p.client.terminate());
    return { cores: navigator.hardwareConcurrency, pools: pools.map(({ n, times }) => ({ n, times })) };
  }, { T, encs: ENCODINGS });
  await page.close();
  const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  return { cores: r.cores, pools: r.pools.map(({ n, times }) => ({ workers: n, median: +median(times).toFixed(1), times: times.map((t) => +t.toFixed(1)) })) };
}

const loadAverage = () => {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
};

export async function measureExplorer(log = console.log) {
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    log(`\n== explorer at T=${T}, all ${ENCODINGS.length} encodings`);
    const frame = await mainThread(browser, server.url);
    log(`  main thread per frame: mean ${frame.draws.mean.toFixed(2)} ms, p95 ${frame.draws.p95.toFixed(2)}, max ${frame.draws.max.toFixed(2)} (${frame.count} frames; frame interval mean ${frame.frames.mean.toFixed(1)} ms)`);
    const work = await worker(browser, server.url);
    log(`  Worker, one length for all encodings: ${work.total} ms (${Object.entries(work.perEncoding).map(([e, v]) => `${e} ${v}`).join(', ')})`);
    const load = loadAverage();
    const lat = await latency(browser, server.url);
    const best = lat.pools.at(-1);
    log(`  new length for all encodings, asked at once, until the last pictures are back: ${lat.pools.map((p) => `${p.workers} Worker${p.workers > 1 ? 's' : ''} ${p.median} ms`).join(', ')} (median of 7; hardwareConcurrency ${lat.cores}; load average ${load})`);
    const round = (s) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, +v.toFixed(2)]));
    const result = { T, encodings: ENCODINGS, frame: { draws: round(frame.draws), frames: round(frame.frames), count: frame.count, rows: frame.rows }, worker: work,
      latency: { ...lat, load } };
    result.met = frame.draws.p95 < 16;
    result.latencyMet = best.median < 100;
    result.markdown = [
      `Measured in headless Chromium (${browser.context.browser()?.version() ?? ''}) on the explorer (\`/?perf=1\`) at T = ${T} with all ${ENCODINGS.length} encodings visible, all heads of layer 1, every row redrawn on every frame (the length alternates between ${T - 16} and ${T}):`,
      '',
      '| work | mean | p95 | max | budget |',
      '|---|---:|---:|---:|---|',
      `| main thread, per frame (draw ${frame.rows} rows of maps, curves, status strips) | ${frame.draws.mean.toFixed(2)} ms | ${frame.draws.p95.toFixed(2)} ms | ${frame.draws.max.toFixed(2)} ms | < 16 ms: **${result.met ? 'met' : 'not met'}** |`,
      `| frame interval while doing it | ${frame.frames.mean.toFixed(1)} ms | ${frame.frames.p95.toFixed(1)} ms | ${frame.frames.max.toFixed(1)} ms | ${(1000 / frame.frames.mean).toFixed(0)} fps |`,
      '',
      `The forward passes are not in the frame: the sweep Worker computes each length once (evaluate on ${evalBatch(T)} sequences keeping the attention maps of the drawn layer only, pooled to pictures in the module, then coloured into ImageBitmaps) and the page caches the pictures. Making one length's pictures for all ${ENCODINGS.length} encodings at T = ${T} takes ${work.total} ms of one Worker's time, one encoding after the other (median of 5; ${Object.entries(work.perEncoding).map(([e, v]) => `${e} ${v}`).join(', ')} ms).`,
      '',
      `Asked for a new length of all ${ENCODINGS.length} encodings at once, the page gets the last pictures back after ${lat.pools.map((p) => `${p.median} ms with ${p.workers} sweep Worker${p.workers > 1 ? 's' : ''}`).join(', ')} (median of 7, through web/app/lab/sweep-client.js; each Worker holds the models of its share of the encodings; hardwareConcurrency ${lat.cores}, load average ${load}; budget < 100 ms: **${result.latencyMet ? 'met' : 'not met'}**).`,
    ].join('\n');
    return result;
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await measureExplorer();
  console.log(JSON.stringify(r, null, 1));
}
