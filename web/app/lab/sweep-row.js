// One row of the lab (DOM and drawing only): an encoding's name, words and big accuracy, its attention maps with a
// readout of one cell and a query row's weights as bars, and its accuracy and loss against length. A row keeps
// the cell the reader points at (`hover`), the keyboard's (`focus`) and the query row charted (`selected`); the
// controller (sweep-view.js) says what to draw and with which words.
import { NAMES, BLURBS } from '../shared/meta.js';
import { cssVar, fitCanvas } from '../shared/heatmap.js';
import { drawChart } from '../shared/chart.js';
import { MAP_H, drawMapsCanvas, cellAt, moveCell, curveOptions, drawRowBars } from './maps.js';

export const READOUT_HINT = 'Hover a map, or focus it and use the arrow keys, to read a weight; click a row to chart it.';
let readoutIds = 0;

/** A row for `enc`, appended to `container`: its elements and the state of its cells. */
export function createRow(container, enc) {
  const row = document.createElement('div');
  row.className = 'sweep-row';
  row.dataset.encoding = enc;
  row.innerHTML = `<div class="row-label"><strong>${NAMES[enc]}</strong> <span class="source"></span><span class="big-acc"></span><p class="scaling" hidden></p>
          <p class="blurb">${BLURBS[enc]}</p><p class="offline" hidden></p><p class="measured" aria-live="off"></p><p class="notice"></p></div>
        <div class="maps-cell"><canvas class="maps" tabindex="0" role="img" aria-label="${NAMES[enc]} attention maps"></canvas>
          <p class="reason" hidden></p><p class="readout" aria-live="polite"></p>
          <canvas class="row-bars" role="img" hidden></canvas></div>
        <canvas class="curve" role="img" aria-label="${NAMES[enc]} accuracy and loss against length"></canvas>`;
  container.append(row);
  return {
    el: row, maps: row.querySelector('.maps'), curve: row.querySelector('.curve'), bars: row.querySelector('.row-bars'),
    readout: row.querySelector('.readout'), notice: row.querySelector('.notice'), reason: row.querySelector('.reason'),
    measured: row.querySelector('.measured'), source: row.querySelector('.source'), big: row.querySelector('.big-acc'), drawn: null, curveKey: null, detailKey: null,
    geom: null, shown: null, hover: null, focus: null, selected: null,
  };
}

/** The readout's first words and its id (unique on the page: several explorers may share it), named by the maps. */
export function startReadout(r) {
  r.readout.textContent = READOUT_HINT;
  r.readout.dataset.hint = '';
  r.readout.id = `posenc-readout-${++readoutIds}`;
  r.maps.setAttribute('aria-describedby', r.readout.id);
}

/** The row's words about the shipped measurements (`text`), hidden while its model is `scaled`. */
export function showOffline(el, text, scaled) {
  const p = el.querySelector('.offline');
  p.textContent = text;
  p.hidden = !p.textContent || scaled;
}

/** The words about the scaling applied to the row's model (`text`, '' for none); they hide the unscaled model's words. */
export function showScaling(el, enc, text) {
  const p = el.querySelector('.scaling');
  p.textContent = text ? `${NAMES[enc]} ${text}.` : '';
  p.hidden = !text;
  el.classList.toggle('scaled', !!text);
  el.querySelector('.offline').hidden = !!text || !el.querySelector('.offline').textContent;
}

/** The maps of result `r` (or none yet) for state `s` at `width` CSS px, with `marks` (drawMapsCanvas's). */
export function drawRowMaps(row, r, s, marks, width) {
  row.shown = r;
  row.geom = drawMapsCanvas(row.maps, r, s, MAP_H, marks, width);
  if (row.geom) row.maps.dataset.geom = JSON.stringify(row.geom); // where the cells are (CSS px), for pointer tests
  // what the maps show, for screen readers (and tests): the length drawn, or that it is still computing
  const name = NAMES[row.el.dataset.encoding];
  row.maps.setAttribute('aria-label', r?.length === s.length ? `${name} attention maps at T = ${r.length}`
    : `${name} attention maps, computing T = ${s.length}`);
}

/** The readout: `text` about `cell` (with `data`, its dataset for tests), or the hint when no cell is read. */
export function showReadout(row, text, data) {
  if (!data) {
    row.readout.textContent = READOUT_HINT;
    row.readout.dataset.hint = '';
    delete row.readout.dataset.cell;
    return;
  }
  delete row.readout.dataset.hint;
  row.readout.textContent = text;
  row.readout.dataset.cell = JSON.stringify(data);
}

/** The selected query row's weights as bars (hidden when none is selected; drawn once its weights `wt` are here). */
export function showBars(row, enc, r, wt) {
  row.bars.hidden = !row.selected;
  if (row.selected && wt && wt.length === r.length) {
    drawRowBars(row.bars, NAMES[enc], r, wt, row.selected);
    row.bars.setAttribute('aria-label', `${NAMES[enc]} head ${r.heads[row.selected.k] + 1}: attention of query ${row.selected.i} over its keys at T = ${r.length}`);
  }
}

/** The row's accuracy and loss against length: `shown`, every length evaluated; `box`, the canvas's CSS size. */
export function drawRowCurve(row, shown, s, grid, box) {
  const [w, h, ctx] = fitCanvas(row.curve, box.curveHeight || MAP_H, box.curve);
  ctx.clearRect(0, 0, w, h);
  const c = (name, fallback) => cssVar(name, fallback, row.curve);
  drawChart(ctx, { x: 26, y: 16, w: w - 30, h: h - 42 }, curveOptions(shown, s, [grid[0], grid.at(-1)],
    { accent: c('--accent'), loss: c('--loss', '#d9480f'), train: c('--train', '#e0a000'), fg: c('--fg') }));
}

/**
 * The row's words: `measured` (the accuracy at the training length and now), `big` ({text, title, live}: the
 * accuracy at the length shown, in large type), `notice`, and `greyed` (the reason a model that did not learn is
 * greyed, or null) with `learned` (true, false or null).
 */
export function showRowWords(row, { measured, big, notice, learned, greyed }) {
  row.measured.textContent = measured;
  row.big.textContent = big.text;
  row.big.title = big.title;
  row.big.classList.toggle('live', big.live);
  row.notice.textContent = notice;
  row.el.classList.toggle('unlearned', greyed != null);
  row.el.dataset.learned = learned == null ? '' : String(learned);
  row.reason.textContent = greyed ?? '';
  row.reason.hidden = greyed == null;
}

/**
 * The reader's pointer and keys on the row's maps: they move `hover`, `focus` and `selected`, then call
 * `redraw()`. A click (or Enter) charts the cell's query row; again, or Escape, stops charting.
 */
export function bindMapInput(row, redraw) {
  const at = (ev) => {
    const b = row.maps.getBoundingClientRect();
    return cellAt(row.geom, ev.clientX - b.left, ev.clientY - b.top);
  };
  const toggle = (c) => (row.selected && row.selected.k === c.k && row.selected.i === c.i ? null : { k: c.k, i: c.i });
  row.maps.addEventListener('pointermove', (ev) => {
    const c = at(ev);
    if (JSON.stringify(c) === JSON.stringify(row.hover)) return;
    row.hover = c;
    redraw();
  });
  row.maps.addEventListener('pointerleave', () => {
    row.hover = null;
    redraw();
  });
  row.maps.addEventListener('click', (ev) => {
    const c = at(ev);
    if (!c) return;
    row.hover = c;
    row.focus = { ...c };
    row.selected = toggle(c);
    redraw();
  });
  row.maps.addEventListener('focus', () => {
    if (!row.focus && row.shown) row.focus = { k: 0, i: 0, j: 0 };
    redraw();
  });
  row.maps.addEventListener('blur', () => {
    row.focus = null;
    redraw();
  });
  // keys inside a focused map: arrows move the cell, Page Up/Down ten queries, [ and ] the head, Enter charts the row
  row.maps.addEventListener('keydown', (ev) => {
    const r = row.shown;
    if (!r || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const f = (row.focus ??= { k: 0, i: 0, j: 0 });
    if (!moveCell(f, ev.key, r, { Enter: () => (row.selected = toggle(f)), Escape: () => (row.selected = null) })) return;
    row.hover = null;
    ev.preventDefault();
    ev.stopPropagation(); // the page's own keys (length, play) do not act while a map has focus
    redraw();
  });
}
