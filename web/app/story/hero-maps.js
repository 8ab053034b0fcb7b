// The hero's attention maps (DOM and drawing only): one figure per picked encoding, its accuracy beside its name,
// its map at the cursor's length and a readout of one cell. A figure keeps the cell the reader points at (`hover`)
// and the one chosen by click or keyboard (`focus`); the controller (hero.js) says what to draw and what to read out.
import { NAMES } from '../shared/meta.js';
import { drawMapsCanvas, cellAt, moveCell } from '../lab/maps.js';
import { pct } from '../shared/results-words.js';
import { sequencesText } from '../lab/evaluations.js';

export const READOUT_HINT = 'Hover or tap a map, or focus it and use the arrow keys, to read a weight and the correct key.';

/**
 * A map's figure for `enc`, appended to `maps`. `first`: it carries the hint under it. `onHover(f)`: the pointer's
 * cell changed (read it out); `onMark(f)`: the highlighted cell changed (draw it on the map).
 */
export function createMapFigure(maps, enc, { colour, first, onHover, onMark }) {
  const fig = document.createElement('figure');
  fig.className = 'hero-map';
  fig.dataset.encoding = enc;
  const cap = document.createElement('figcaption');
  const name = document.createElement('strong');
  name.textContent = NAMES[enc];
  name.style.borderColor = colour;
  const acc = document.createElement('span');
  acc.className = 'acc';
  cap.append(name, acc);
  const c = document.createElement('canvas');
  c.className = 'maps';
  c.setAttribute('role', 'img');
  c.tabIndex = 0; // (focus it and use the arrow keys: the keyboard's readout, as the lab's maps)
  const readout = document.createElement('p');
  readout.className = 'hero-readout';
  readout.setAttribute('aria-live', 'polite');
  readout.textContent = first ? READOUT_HINT : ''; // (the hint once, under the first map)
  fig.append(cap, c, readout);
  maps.append(fig);
  const f = { enc, fig, canvas: c, acc, readout, key: null, geom: null, shown: null, hover: null, focus: null, readoutKey: null };
  // a readout of the cell under the pointer (a tap on a touch screen), as the lab's maps give
  const at = (ev) => {
    const b = c.getBoundingClientRect();
    return cellAt(f.geom, ev.clientX - b.left, ev.clientY - b.top);
  };
  const hover = (cell) => {
    if (JSON.stringify(cell) === JSON.stringify(f.hover)) return;
    f.hover = cell;
    onHover(f);
  };
  c.addEventListener('pointermove', (ev) => hover(at(ev)));
  c.addEventListener('click', (ev) => {
    const cell = at(ev);
    if (cell) f.focus = { ...cell };
    hover(cell);
    onMark(f);
  });
  c.addEventListener('pointerleave', () => hover(null));
  c.addEventListener('focus', () => {
    if (!f.focus && f.shown) f.focus = { k: 0, i: 0, j: 0 };
    onMark(f);
  });
  c.addEventListener('blur', () => {
    f.focus = null;
    onMark(f);
  });
  // keys inside a focused map (as the lab's): arrows move the cell, Page Up/Down ten queries, Home/End the row's
  // first key and the query itself, [ and ] the head
  c.addEventListener('keydown', (ev) => {
    const r = f.shown;
    if (!r || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (!moveCell((f.focus ??= { k: 0, i: 0, j: 0 }), ev.key, r)) return;
    f.hover = null;
    ev.preventDefault();
    ev.stopPropagation(); // the page's own keys (length, play) do not act while a map has focus
    onMark(f);
  });
  return f;
}

/** Keeps figure `f`'s highlighted cell (kept from a longer map) inside map `r`. */
export function keepFocusInside(f, r) {
  if (!f.focus || !r) return;
  f.focus.i = Math.min(f.focus.i, r.length - 1);
  f.focus.j = Math.min(f.focus.j, r.length - 1);
  if (f.focus.k >= r.bitmaps.length) f.focus.k = 0;
}

/**
 * Draws figure `f`'s map `r` (or none yet) for state `s` at `width` CSS px, with `v`, the evaluation of the map's
 * own length (null while the cursor's length computes), beside its name.
 */
export function drawMapFigure(f, r, s, v, width) {
  f.shown = r;
  f.geom = drawMapsCanvas(f.canvas, r, s, 230, { hideAccuracy: true, ...(f.focus ? { focus: f.focus } : {}) }, width);
  if (f.geom) f.canvas.dataset.geom = JSON.stringify(f.geom); // where the cells are (CSS px), for pointer tests
  if (f.focus) f.canvas.dataset.focus = JSON.stringify(f.focus); // the highlighted cell (drawn on the map)
  else delete f.canvas.dataset.focus;
  f.acc.textContent = v ? `${pct(v.accuracy)}%` : '…';
  f.acc.title = v ? `accuracy at T = ${s.length}, ${v.measured ? 'measured' : 'live'} on ${sequencesText(v.sequences)}` : `T = ${s.length} is being computed`;
  f.acc.classList.toggle('live', !!v?.partial);
  const enc = f.enc;
  f.canvas.setAttribute('aria-label', r ? `${NAMES[enc]} attention at T = ${r.length}${v ? `, accuracy ${pct(v.accuracy)}%` : r.length !== s.length ? `, computing T = ${s.length}` : ''}`
    : `${NAMES[enc]} attention, computing`);
}

/** Figure `f`'s readout: `text` for `cell` (of the map of length `length`), or the `hint` when no cell is read. */
export function showMapReadout(f, text, cell, length) {
  f.readout.textContent = text;
  if (cell) f.readout.dataset.cell = JSON.stringify({ ...cell, length });
  else delete f.readout.dataset.cell;
}
