// The training panel: per encoding a progress bar, a live loss curve (a shipped checkpoint's recorded one,
// until a retrain replaces it), the latest numbers and Stop / Retrain buttons. A run trains for a budget of
// steps and stops early once its held-out check meets the experiment's target;
// a finished row says which ("stopped early at step N" / "ran all N steps"). Whether the model learned is the
// page's one verdict (evaluations.js), shown beside it: the same words and number as the lab's row and the story.
import { NAMES } from '../shared/meta.js';
import { learnedWords, heldOutWords } from './trainer.js';
import { cssVar, fitCanvas } from '../shared/heatmap.js';
import { drawChart } from '../shared/chart.js';
import { createArrivals, createWake } from './arrivals.js';
import { pct } from '../shared/results-words.js';
import { sequencesText } from './evaluations.js';

const LABELS = { untrained: 'untrained', queued: 'queued', training: 'training', trained: 'trained', stopped: 'stopped',
  checkpoint: 'shipped checkpoint', error: 'error' };

// What a shipped run's recorded curve says at its end: where it met the held-out target, or that it never did.
function offlineWords(c) {
  const [, held] = c.heldOut.at(-1) ?? [];
  const check = held === undefined ? '' : c.heldOutMetric === 'loss' ? `, loss ${held.toFixed(3)} on new sequences`
    : `, accuracy ${held.toFixed(3)} on new sequences`;
  return c.stepsToTarget ? `trained offline: stopped early at step ${c.stepsToTarget}${check}`
    : `trained offline: ran all ${c.steps} steps${check}`;
}

export function createTrainView(container, { onStop, onRetrain }) {
  const rows = new Map();
  let shippedInfo = () => null;
  let shippedCurve = () => null;
  let verdictOf = () => null; // enc -> evaluations.verdict (the one "learned" verdict)

  const pending = new Map(); // encoding -> the newest run to show (its progress only: a new status is shown at once)
  const progress = createArrivals(); // drawn at most once per slot, in the frames the sweep view uses
  let frame = 0;
  const requestFlush = () => {
    wake.cancel();
    frame ||= requestAnimationFrame(flush);
  };
  const wake = createWake(requestFlush); // a frame in the slot progress is due in, not one per message
  function flush(now) {
    frame = 0;
    for (const enc of pending.keys()) if (!rows.has(enc)) pending.delete(enc);
    if (!progress.due(now)) {
      if (pending.size) wake.in(progress.msToDue(now), now);
      return;
    }
    const due = [...pending];
    const widths = due.map(([enc]) => rows.get(enc).canvas.clientWidth);
    pending.clear();
    progress.drawn(now);
    due.forEach(([enc, r], k) => show(rows.get(enc), r, widths[k]));
  }

  // One row, with its canvas width read before the frame's writes (a read after them forces a layout per row).
  function show(row, r, width) {
    row.shownStatus = r.status;
    row.el.dataset.status = r.status;
    // The bar: steps out of the budget; full once the run is over (an early stop ends it before the budget).
    row.bar.max = Math.max(1, r.steps);
    row.bar.value = r.status === 'checkpoint' || r.status === 'trained' ? row.bar.max : r.step;
    row.stop.disabled = !(r.status === 'training' || r.status === 'queued');
    // A shipped checkpoint shows the curve its offline run recorded (shipped-curves.js), a live run its own.
    const shipped = r.status === 'checkpoint' && !r.losses.length ? shippedCurve(row.el.dataset.encoding) : null;
    const losses = shipped?.points ?? r.losses;
    const last = shipped ? null : r.losses.at(-1);
    const learned = r.status === 'trained' ? learnedWords(r) : null, held = heldOutWords(r);
    row.stat.textContent = r.status === 'error' ? `error: ${r.error}`
      : `${learned ?? LABELS[r.status]}${r.steps && r.status !== 'checkpoint' && !learned ? ` · step ${r.step}/${r.steps}` : ''}` +
        (held ? ` · ${held}` : '') + (last ? ` · loss ${last[1].toFixed(3)} · train acc ${r.accuracy.toFixed(2)}` : '') +
        (shipped ? ` · ${offlineWords(shipped)}` : '');
    // A shipped checkpoint whose curve this build does not ship: no empty chart, but what the offline run recorded
    // (results.json: the step it met the held-out target).
    const offline = r.status === 'checkpoint' && !losses.length;
    row.canvas.hidden = offline;
    row.offline.hidden = !offline;
    if (offline) {
      const info = shippedInfo(row.el.dataset.encoding);
      row.offline.textContent = info?.stepsToTarget
        ? `trained offline: stopped early at step ${info.stepsToTarget}; its loss curve is not recorded. Retrain to watch it learn.`
        : 'trained offline; its loss curve is not recorded. Retrain to watch it learn.';
      return;
    }
    const [w, h, ctx] = fitCanvas(row.canvas, 58, width);
    ctx.clearRect(0, 0, w, h);
    const maxLoss = Math.ceil(Math.max(0.5, ...losses.map((p) => p[1])));
    // the budget while training, the steps run once done (a shipped run: the steps it ran)
    const steps = Math.max(1, shipped ? shipped.steps : r.status === 'trained' ? r.step : r.steps);
    drawChart(ctx, { x: 24, y: 3, w: w - 28, h: h - 26 }, {
      x: [0, steps], y: [0, maxLoss],
      series: [{ points: losses, colour: cssVar('--loss', '#d9480f') }],
      xTicks: [0, steps], yTicks: [0, maxLoss], xLabel: 'training step', yLabel: 'loss (nats)',
    });
    row.canvas.dataset.curve = shipped ? 'shipped' : 'live';
    row.canvas.dataset.points = String(losses.length);
  }

  // The verdict of each row's model: the evaluation at the training length against the task's target.
  function showVerdict(enc, row) {
    // (a model still training, or not yet trained, has no verdict yet)
    const v = ['checkpoint', 'trained', 'stopped'].includes(row.shownStatus) ? verdictOf(enc) : null;
    const key = v ? `${v.learned}|${v.at?.accuracy}|${v.at?.sequences}` : '';
    if (key === row.verdictKey) return;
    row.verdictKey = key;
    if (!v || v.learned == null) {
      row.verdict.textContent = '';
      delete row.el.dataset.learned;
      return;
    }
    row.el.dataset.learned = String(v.learned);
    row.verdict.textContent = v.learned
      ? `learned: accuracy ${pct(v.at.accuracy)}% at the training length, on ${sequencesText(v.at.sequences)}`
      : `${v.reason}, on ${sequencesText(v.at.sequences)}`;
  }

  return {
    /** `fn(enc)`: the one verdict of a row's model (evaluations.js verdict), shown by refreshVerdicts(). */
    setVerdict(fn) {
      verdictOf = fn;
    },
    /** Show each row's verdict where it changed (the page calls it as evaluations arrive). */
    refreshVerdicts() {
      for (const [enc, row] of rows) showVerdict(enc, row);
    },
    /** `fn(enc)`: what the offline run of a shipped checkpoint recorded ({stepsToTarget}), or null. */
    setShippedInfo(fn) {
      shippedInfo = fn;
    },
    /** `fn(enc)`: the recorded training curve of the shipped checkpoint (shipped-curves.js shippedCurve), or null. */
    setShippedCurve(fn) {
      shippedCurve = fn;
    },
    build(encodings) {
      container.replaceChildren();
      rows.clear();
      for (const enc of encodings) {
        const el = document.createElement('div');
        el.className = 'train-row';
        el.dataset.encoding = enc;
        el.innerHTML = `<strong>${NAMES[enc]}</strong>
          <progress max="1" value="0" aria-label="${NAMES[enc]} training progress"></progress>
          <canvas class="loss" role="img" aria-label="${NAMES[enc]} training loss"></canvas><span class="offline-train" hidden></span>
          <span class="tstat-cell"><span class="tstat" role="status"></span><span class="verdict"></span></span>
          <span class="tbuttons"><button type="button" class="stop">Stop</button>
          <button type="button" class="again">Retrain</button></span>`;
        el.querySelector('.stop').addEventListener('click', () => onStop(enc));
        el.querySelector('.again').addEventListener('click', () => onRetrain(enc));
        container.append(el);
        rows.set(enc, { el, bar: el.querySelector('progress'), canvas: el.querySelector('canvas'), stat: el.querySelector('.tstat'),
          offline: el.querySelector('.offline-train'), verdict: el.querySelector('.verdict'), verdictKey: null,
          stop: el.querySelector('.stop') });
      }
    },
    /**
     * Show run `r` of `enc`: at once when its status changed; while only its progress changes, in a frame of the
     * next arrival slot (arrivals.js: two Workers send progress about 100 times a second, and a redraw each kept
     * the main thread busy with layout, paint and commit while the models trained).
     */
    update(enc, r) {
      const row = rows.get(enc);
      if (!row) return;
      if (r.status === row.shownStatus) {
        pending.set(enc, r);
        progress.wait();
        if (!frame) wake.in(progress.msToDue(performance.now()));
        return;
      }
      pending.delete(enc); // a new status (queued, trained, error...) at once: what the row says is never behind it
      show(row, r, row.canvas.clientWidth);
    },
  };
}

