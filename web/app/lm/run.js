// The model view's run loop (no DOM): a forward per Worker at a time, each streaming in, cancelled when no longer
// wanted, and the figures' data as far as the forwards have come. The controller (controller.js) owns the model and
// the settings; this module owns what is computing.
//
// One loop hands the forwards the current settings still need to the idle Workers, in the plan's order (the chosen
// scaling, then none, then the others), and re-plans after each one lands or the settings change. A forward streams
// in chunks of rows (core.js): its line is drawn as far as its rows go. A forward the settings no longer want is
// cancelled in its Worker (which frees its memory between two chunks), and its partial line is dropped at once.
import { planForwards, findNll, findStats, mapsKey, nllKeys, statLengths, SCALING_NAMES } from './plan.js';
import { rowsCost, timeLeftWords, memoryWords } from './schedule.js';
import { perplexityWords, statsWords, statPoint, count } from './words.js';
import { ROPE_SCALINGS } from '../shared/state.js';
import { holdBackground } from '../shared/foreground.js';

/**
 * `m`: the controller's model, read live ({info, ids, results (a Map of finished forwards, replaced for another model
 * or passage), modelGen}); `settings()`, `needsConfirmation()`: the controller's; `pool`, `request`: the Workers
 * (pool.js); `ui`: as the controller's (error, busy, progress, memory, figure, modelShown, mark).
 */
export function createRun({ m, settings, needsConfirmation, pool, request, ui }) {
  let gen = 0, busyTimer = 0, running = false, cancelled = -1, wake = () => {};
  let run = { gen: -1, t0: 0, done: 0, count: 0 };
  const inFlight = new Map(); // key -> {index (the Worker), j (the job), landed (a promise of {j, f, r | e, my, mg, rs}), cancel}
  const partial = new Map(); // key -> {nll: Float32Array [length - 1], rows (run so far)}: forwards streaming in
  const memory = createMemoryCheck({ request, ui });
  function stopForwards(wanted = () => false) {
    for (const [k, f] of inFlight) {
      if (wanted(k)) continue;
      f.cancel();
      f.cancelled = true;
      inFlight.delete(k);
      partial.delete(k);
    }
    wake();
  }
  function cancelCompute() {
    cancelled = gen;
    stopForwards();
    clearTimeout(busyTimer);
    ui.busy(false);
  }

  function compute() {
    if (!m.info || !m.ids || needsConfirmation()) return;
    gen++;
    draw();
    if (!running) loop();
    else wake();
  }

  const drawSoon = oncePerFrame(() => draw()); // chunks land faster than frames: one draw per frame

  // Starts job `j` on Worker `i`, streaming its line into `partial`.
  function send(j, i, s, my, mg, rs) {
    const sent = performance.now() - run.t0;
    const line = { nll: new Float32Array(j.length - 1), rows: 0 };
    const onChunk = (chunk) => {
      if (partial.get(j.key) !== line) return;
      takeChunk(run, my, j, line, chunk, ui.mark);
      drawSoon();
    };
    partial.set(j.key, line);
    const stream = pool.stream({ tokens: m.ids.slice(0, j.length), context: s.context, scaling: j.scaling, stats: j.stats,
      mapLayer: j.mapLayer, mapPx: Math.min(64, j.length) }, i, onChunk);
    const f = { index: i, j, cancel: stream.cancel, cancelled: false };
    f.landed = stream.landed.then((r) => ({ j, f, line, r, my, mg, rs, i, sent }), (e) => ({ j, f, e, my, mg, rs }));
    inFlight.set(j.key, f);
    run.sent.push(j.type);
    ui.mark('sentOrder', run.sent.join(',')); // the order the forwards were started in (tests)
  }

  // A forward landed (or failed): its line joins the results.
  function landed(got) {
    inFlight.delete(got.j.key);
    partial.delete(got.j.key);
    if (got.e) {
      if (got.my === gen && got.rs === m.results && got.e.name !== 'AbortError') {
        ui.error(`The forward failed: ${got.e.message}`);
        cancelled = gen;
      }
      return;
    }
    if (got.mg !== m.modelGen || got.rs !== m.results) return; // another model or passage since
    m.results.set(got.j.key, { ...got.r, nll: got.line.nll });
    if (run.gen === got.my) {
      run.done++;
      run.log.push(`w${got.i} ${got.j.type} ${Math.round(got.sent)}-${Math.round(performance.now() - run.t0)} (${Math.round(got.r.ms)})`);
    }
    draw();
  }

  let releaseBackground = () => {};
  async function loop() {
    running = true;
    releaseBackground = holdBackground(); // the page's sweep waits while the reader waits on these forwards
    try {
      for (;;) {
        if (!m.info || !m.ids || cancelled === gen) break;
        const my = gen, mg = m.modelGen, rs = m.results, s = settings();
        const plan = planForwards(s);
        const wanted = new Set(plan.map((j) => j.key));
        stopForwards((k) => wanted.has(k)); // the settings changed: what they no longer want stops now
        const todo = plan.filter((j) => !m.results.has(j.key) && !inFlight.has(j.key) &&
          !(j.mapLayer == null && !j.stats && findNll(m.results, s, j.type)));
        if (run.gen !== my) {
          clearTimeout(busyTimer);
          run = { gen: my, t0: performance.now(), doneCost: 0, done: 0, log: [], firstMs: null, sent: [] };
          busyTimer = setTimeout(() => { if (run.gen === gen && running && cancelled !== gen) ui.busy(true); }, 300); // only past 300 ms
        }
        const step = await memory.check(s, mg, todo.length, () => mg !== m.modelGen);
        if (step === 'stop') {
          cancelled = gen;
          break;
        }
        if (step === 'measured') continue;
        if (!todo.length && !inFlight.size) {
          ui.mark('computeMs', String(Math.round(performance.now() - run.t0)));
          // each forward: its Worker, when it was sent and landed (ms since the settings) and its own time in the Worker
          // (bench/lm-figure.js)
          ui.mark('forwardLog', run.log.join(', '));
          break;
        }
        const taken = new Set([...inFlight.values()].map((f) => f.index));
        for (let i = 0; i < pool.size && todo.length; i++) if (!taken.has(i)) send(todo.shift(), i, s, my, mg, rs);
        showProgress(todo);
        // the next forward to land, or new settings (wake)
        const got = await Promise.race([...[...inFlight.values()].map((f) => f.landed), new Promise((resolve) => { wake = () => resolve(null); })]);
        wake = () => {};
        if (got && !got.f.cancelled) landed(got);
      }
    } finally {
      running = false;
      releaseBackground();
      clearTimeout(busyTimer);
      ui.busy(false);
    }
  }

  // The progress: which forwards run, how far, and the time left (from the work done so far in this run).
  let progressTimer = 0;
  function showProgress(todo) {
    clearTimeout(progressTimer);
    if (!running || run.gen !== gen) return;
    ui.progress(progressOf(run, [...inFlight.values()].map((f) => f.j), todo, partial));
    progressTimer = setTimeout(() => showProgress(todo), 500);
  }

  // ---------- what the figures show ----------
  let order = [], orderGen = -1;
  function draw() {
    if (orderGen !== gen) [order, orderGen] = [[], gen];
    if (!m.info || !m.ids || !ui.modelShown() || needsConfirmation()) return;
    const s = settings();
    const f = figureOf(m, s, partial, cancelled === gen);
    const drawn = Object.keys(f.series).filter((t) => !order.includes(t));
    if (run.gen === gen) order.push(...drawn); // the order the lines first showed (tests)
    ui.mark('lineOrder', order.join(','));
    ui.mark('partial', ROPE_SCALINGS.filter((t) => f.series[t] && f.series[t].length < s.length - 1).join(','));
    ui.figure(f);
    ui.mark('series', String(Object.keys(f.series).length));
    if (f.whole === ROPE_SCALINGS.length && run.gen === gen && run.figureMs == null) ui.mark('figureMs', String(run.figureMs = Math.round(performance.now() - run.t0)));
  }

  return { compute, cancel: cancelCompute, draw, release: () => releaseBackground() };
}

/**
 * Before a run starts: the memory it needs at its peak, said, and refused when it does not fit. check() returns
 * 'measured' (plan again: the settings may have changed meanwhile), 'stop' or 'go'; `stale()`: another model since.
 */
function createMemoryCheck({ request, ui }) {
  let memory = null; // {key (model, length, layer), fits, text, total}: the peak memory of a run at the settings
  let refusedShown = false; // the error shown is the memory's refusal
  return {
    async check(s, mg, todo, stale) {
      const memoryKey = `${mg}|${s.length}|${s.layer}`;
      if (todo && memory?.key !== memoryKey) {
        const px = Math.min(64, s.length);
        const got = await request('memory', { length: s.length, stats: true, mapLayer: s.layer, mapPx: px }).then((r) => r.memory, (e) => e);
        if (stale()) return 'measured';
        if (got instanceof Error) {
          ui.error(`The memory a run needs could not be measured: ${got.message}`);
          return 'stop';
        }
        memory = { key: memoryKey, total: got.total, ...memoryWords(got, s.length) };
        ui.memory(memory);
        if (memory.fits && refusedShown) ui.error('');
        refusedShown = false;
        ui.mark('peakBytes', String(got.total));
        return 'measured';
      }
      if (todo && !memory.fits) {
        ui.error(memory.text);
        refusedShown = true;
        return 'stop';
      }
      return 'go';
    },
  };
}

/** The progress line: which forwards run, how far, and the time left (from the work done so far in this run). */
function progressOf(run, flying, todo, partial) {
  const doneNow = run.doneCost, left = [...flying, ...todo].reduce((a, j) => a + j.cost, 0) -
    flying.reduce((a, j) => a + rowsCost(j, 0, partial.get(j.key)?.rows ?? 0), 0);
  const when = run.firstMs == null ? null : timeLeftWords(doneNow - run.firstCost, performance.now() - run.firstAt, left);
  const text = `forward ${run.done + 1} of ${run.done + flying.length + todo.length}: ` +
    `${flying.map((j) => SCALING_NAMES[j.type]).join(' and ')} over ${count(Math.max(...flying.map((j) => j.length)))} tokens` +
    `${flying.some((j) => j.stats) ? ', with attention statistics' : ''} · ${when ?? 'estimating the time left'}`;
  return { value: doneNow / (doneNow + left || 1), text };
}

/**
 * What the figures show at settings `s`: each scaling's losses, whole or as far as they have streamed in (`partial`),
 * the chosen scaling's maps, the statistics' points and the sentences (which read only whole lines: a line still
 * streaming in has no numbers past its end yet). `stopped`: the reader cancelled this run. `whole`: how many lines
 * are whole.
 */
function figureOf(m, s, partial, stopped) {
  const streaming = (t) => {
    for (const k of nllKeys(s, t, s.type)) {
      const p = partial.get(k);
      if (p?.rows) return p.nll.subarray(0, Math.min(p.rows, s.length - 1));
    }
    return null;
  };
  const series = {};
  for (const t of ROPE_SCALINGS) {
    const nll = findNll(m.results, s, t) ?? streaming(t);
    if (nll) series[t] = nll;
  }
  const whole = Object.fromEntries(Object.entries(series).filter(([, nll]) => nll.length === s.length - 1));
  const points = statLengths(s.length, s.context).map((n) => [n, findStats(m.results, s, s.type, n)]).filter(([, r]) => r)
    .map(([n, r]) => statPoint(n, r));
  const maps = m.results.get(mapsKey(s, s.type));
  return { s, series, whole: Object.keys(whole).length, heads: m.info.config.heads, maps: maps?.maps ? maps : null, points,
    pplText: perplexityWords(whole, s) + (stopped ? ' (Stopped: what is drawn is what was computed before.)' : ''),
    statsText: statsWords(points, s) };
}

/** `fn`, called at most once a frame however often the result is called. */
function oncePerFrame(fn) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      fn();
    });
  };
}

/** A chunk of job `j`'s rows landed in `line` during run `my`: its cost counts, and the run's first points are noted. */
function takeChunk(run, my, j, line, { from, rows, nll }, mark) {
  line.nll.set(nll, from);
  if (run.gen === my) run.doneCost += rowsCost(j, line.rows, rows);
  line.rows = rows;
  if (run.gen === my && run.firstMs == null) {
    mark('firstPointsMs', String(run.firstMs = Math.round(performance.now() - run.t0)));
    [run.firstAt, run.firstCost] = [performance.now(), run.doneCost]; // the rate is measured from here (past the start's costs)
  }
}
