// The main view: one row per encoding with the attention maps of the chosen
// layer (one head, or all heads as small multiples) at the current length, a
// position-status strip under each map (trained / never trained / past the
// learned table), the training length marked, and accuracy and loss against
// length drawn up to the current length. Draws only what changed.
// This is the view's controller: which rows are on screen, the words each row is given, and the data it asks the
// evaluations store and the sweep for. A row's DOM and drawing are sweep-row.js's; the maps' own drawing is maps.js's.
import { NAMES } from '../shared/meta.js';
import { noticeText, measuredText } from './row-words.js';
import { createEvaluations, sequencesText } from './evaluations.js';
import { pct } from '../shared/results-words.js';
import { readoutText, rowOf } from './maps.js';
import { createRow, startReadout, showOffline, showScaling, drawRowMaps, showReadout, showBars, drawRowCurve, showRowWords, bindMapInput } from './sweep-row.js';
export { noticeText };

/**
 * `legend: false`: no colour legend beside each map (the element draws one for all). `onVisible(fn)`: rows off
 * screen are not drawn (an IntersectionObserver marks them), and `onVisible()` is called when one comes into view,
 * to draw it (the page's lab, far below its first screen; an element's few rows are always drawn).
 */
export function createSweepView(container, client, { legend = true, onVisible = null, evaluations = createEvaluations({ client }) } = {}) {
  const rows = new Map();
  const seen = new WeakMap(); // row element -> on screen (within a margin)
  const observer = onVisible && typeof IntersectionObserver === 'function' ? new IntersectionObserver((entries) => {
    let shown = false;
    for (const e of entries) {
      seen.set(e.target, e.isIntersecting);
      shown ||= e.isIntersecting;
    }
    if (shown) onVisible();
  }, { rootMargin: '300px 0px' }) : null;
  const onScreen = (el) => !observer || seen.get(el) !== false;
  let offlineWords = () => ''; // a row's words about the shipped measurements (shared/claims.js)
  let yardstickFor = () => null; // the task's floor, metric and target (row-words.js yardstick), from the shipped results
  let lastState = null;
  const scalings = new Map(); // encoding -> words about the scaling applied to its model ('' or absent: none)

  function build(encodings) {
    observer?.disconnect();
    container.replaceChildren();
    rows.clear();
    for (const enc of encodings) {
      const r = createRow(container, enc);
      showOffline(r.el, offlineWords(enc), !!scalings.get(enc));
      showScaling(r.el, enc, scalings.get(enc) ?? '');
      startReadout(r);
      rows.set(enc, r);
      observer?.observe(r.el);
      bindMapInput(r, () => redrawRow(enc, r));
    }
  }

  function drawMaps(row, r, s, force, box) {
    const ev = r ? evaluations.at(row.el.dataset.encoding, r.length) : null;
    const marks = { focus: row.focus, selected: row.selected, ...(legend ? {} : { noLegend: true }), ...(ev ? { accuracy: ev.accuracy } : {}) };
    const key = r ? `${r.gen}|${r.length}|${r.trainedLength}|${s.length}|${r.bitmaps.length}|${JSON.stringify(marks)}` : 'none';
    if (!force && row.drawn === key) return;
    row.drawn = key;
    drawRowMaps(row, r, s, marks, box.maps);
  }

  // the readout and the selected row's bar chart, from the exact weights of the map drawn
  function drawDetail(enc, row, s, force) {
    const r = row.shown;
    if (!r) return;
    clampCells(row, r.length);
    const cell = row.hover ?? row.focus; // the cell the readout describes: the pointer's, else the keyboard's
    const need = cell || row.selected;
    const wt = need ? client.weights(enc, r.length) : null;
    const key = `${r.gen}|${r.length}|${!!wt}|${JSON.stringify([cell, row.selected])}`;
    if (!force && key === row.detailKey) return;
    row.detailKey = key;
    if (!cell) showReadout(row, null, null);
    else {
      showReadout(row, client.fresh(enc, r.length) ? readoutText(NAMES[enc], r, s, wt, cell)
        : `${readoutText(NAMES[enc], r, s, null, cell).replace(/fetching the weights…$/, '')}this map is from the previous model; the new one is being computed.`,
      { ...cell, head: r.heads[cell.k], length: r.length, weight: wt && cell.j <= cell.i ? rowOf(wt, cell.k, cell.i)[cell.j] : null });
    }
    showBars(row, enc, r, wt);
  }

  function redrawRow(enc, row) {
    if (!lastState) return;
    drawMaps(row, row.shown, lastState, false, { maps: row.maps.clientWidth });
    drawDetail(enc, row, lastState, false);
  }

  // The row's numbers are the page's evaluations (evaluations.js): the same as the hero's and the story's for this
  // model, length and scaling; the grey-out is the one verdict (evaluations.verdict).
  function drawCurve(row, enc, s, grid, force, box) {
    const shown = evaluations.series(enc); // every length evaluated: the curve stays whole, the current length is a cursor on it
    const nowMap = row.shown?.length === s.length; // the map on screen is of the length shown (not a shorter one while it computes)
    const key = `${evaluations.key(enc)}|${shown.length}|${s.length}|${s.trainLength}|${s.task}|${nowMap}`;
    if (!force && row.curveKey === key) return;
    row.curveKey = key;
    drawRowCurve(row, shown, s, grid, box);
    const a1 = evaluations.at(enc, s.trainLength), now = evaluations.at(enc, s.length), aNow = now ?? shown.at(-1), y = yardstickFor(s.task);
    // the accuracy at the length shown, in large type (as the GIF export writes it); none over a map still computing
    const big = nowMap ? now : null;
    // a model that did not learn: its maps greyed, with the reason (the one verdict, on the unscaled model)
    const l = evaluations.verdict(enc, s.task, s.trainLength);
    showRowWords(row, {
      measured: measuredText(a1, aNow, s.trainLength, y) + (aNow?.partial ? ` (T = ${aNow.length}: live, on ${sequencesText(aNow.sequences)})` : ''),
      big: { text: big ? `${pct(big.accuracy)}%` : '', live: !!big?.partial,
        title: big ? `accuracy at T = ${s.length}, ${big.measured ? 'measured' : 'live'} on ${sequencesText(big.sequences)}` : '' },
      notice: noticeText(NAMES[enc], a1, aNow, s.trainLength, y, { scaled: !!scalings.get(enc) }),
      learned: l.learned,
      greyed: l.learned === false ? `Greyed: ${NAMES[enc]} ${l.reason}.` : null,
    });
  }

  return {
    build,
    rows,
    /** Draw every row for state `s` (length, layer, trainLength...). */
    draw(s, grid, force = false) {
      lastState = s;
      // every canvas's size first, then the drawing: a read after a row's DOM writes (labels, words) would
      // force a layout per row
      const boxes = new Map([...rows].filter(([, row]) => force || onScreen(row.el))
        .map(([enc, row]) => [enc, { maps: row.maps.clientWidth, curve: row.curve.clientWidth, curveHeight: row.curve.clientHeight }]));
      for (const [enc, row] of rows) {
        if (!force && !onScreen(row.el)) continue; // drawn when it comes into view (onVisible)
        drawMaps(row, client.get(enc, s.length), s, force, boxes.get(enc));
        drawDetail(enc, row, s, force);
        drawCurve(row, enc, s, grid, force, boxes.get(enc));
      }
    },
    /** Sets the function giving a task's yardstick (floor, metric, target) for the rows' words (and the verdict). */
    setYardstick(fn) {
      yardstickFor = fn;
      evaluations.setYardstick(fn);
      for (const row of rows.values()) row.curveKey = null;
    },
    /** Sets the function giving each row's words about the shipped measurements, and fills them in. */
    setOfflineWords(fn) {
      offlineWords = fn;
      for (const [enc, row] of rows) showOffline(row.el, offlineWords(enc), !!scalings.get(enc));
    },
    /** A row's model is scaled at evaluation (RoPE): say so (type and factor), and hide the words about the unscaled model. */
    setScaling(enc, text) {
      scalings.set(enc, text);
      const row = rows.get(enc);
      if (row) {
        showScaling(row.el, enc, text ?? '');
        row.curveKey = null; // its words depend on it
      }
    },
    setSource(enc, text) {
      const row = rows.get(enc);
      if (row) row.source.textContent = text;
    },
  };
}

// The cells kept from a longer map stay inside this one (of T positions).
function clampCells(row, T) {
  for (const key of ['hover', 'focus', 'selected']) {
    const c = row[key];
    if (!c) continue;
    c.i = Math.min(c.i, T - 1);
    if ('j' in c) c.j = Math.min(c.j, T - 1);
    if (c.k >= (row.shown?.bitmaps.length ?? 1)) c.k = 0;
  }
}
