// The first screen's figure: accuracy against length (log axis), one line per encoding, the training length
// and the task's floor marked. Every point is an evaluation of the page's one store (evaluations.js): the
// shipped checkpoints' measured sweep, drawn whole from the start, and the live sweep's points (a retrained
// model, a RoPE scaling, a length not measured), drawn hollow and dashed while they rest on fewer sequences than
// the shipped ones. The legend and the number beside each map are the store's evaluation at the cursor, the
// same number the lab's row shows.
// The playhead is a cursor on the curves, nothing is wiped. Beside it, the attention maps of the encodings the
// reader picks (the legend's buttons), at the length under the cursor.
// This is the figure's controller: what it remembers, the reader's pointer on the chart, and the data it asks the
// evaluations store and the live sweep for. The views draw: the chart (hero-chart.js), the legend and its note
// (hero-legend.js), the maps (hero-maps.js).
import { NAMES } from '../shared/meta.js';
import { readoutText } from '../lab/maps.js';
import { encodingColours } from '../shared/palette.js';
import { drawHeroChart } from './hero-chart.js';
import { buildLegend, showLegendValue, countsText } from './hero-legend.js';
import { READOUT_HINT, createMapFigure, drawMapFigure, keepFocusInside, showMapReadout } from './hero-maps.js';

/** The evaluation of a line at or before `L` (its last point not past L), or null: what the legend keeps while L computes. */
export function lastAtOrBefore(points, L) {
  let best = null;
  for (const p of points) if (p.length <= L && (!best || p.length > best.length)) best = p;
  return best;
}

export function createHero(root, { client: given = null, evaluations, encodingsAll, onPick, onLength }) {
  let client = given;
  const canvas = root.querySelector('canvas.hero-chart'), legend = root.querySelector('.hero-legend'), maps = root.querySelector('.hero-maps');
  const note = root.querySelector('.hero-note .counts');
  const colour = encodingColours(encodingsAll);
  let geom = null, last = null, floor = null, lastState = null, lastGrid = null;
  const figures = new Map();
  followPointer(canvas, () => geom, onLength);

  // the readout of a map's hovered cell, from the exact weights of the map drawn (fetched on demand, as the lab's)
  function showReadout(f) {
    const r = f.shown, cell = f.hover ?? f.focus; // the pointer's cell, else the keyboard's
    const wt = r && cell ? client?.weights(f.enc, r.length) ?? null : null;
    const key = `${r?.gen}|${r?.length}|${!!wt}|${JSON.stringify(cell)}`;
    if (key === f.readoutKey) return;
    f.readoutKey = key;
    if (!r || !cell) showMapReadout(f, f === figures.values().next().value ? READOUT_HINT : '', null);
    else showMapReadout(f, readoutText(NAMES[f.enc], r, lastState, wt, cell), cell, r.length);
  }

  // the highlighted cell (the keyboard's, or the one clicked or tapped) is drawn on the map: redraw it
  function mark(f) {
    f.key = null;
    if (lastState && lastGrid) api.draw(lastState, lastGrid);
  }

  function drawChart(s, grid) {
    const lines = s.encodings.map((enc) => ({ enc, points: evaluations.series(enc) }));
    const cursor = lines.map(({ enc }) => ({ enc, v: evaluations.at(enc, s.length) }))
      .filter(({ enc, v }) => v != null && s.picks.includes(enc)).map(({ enc, v }) => ({ enc, accuracy: v.accuracy }));
    geom = drawHeroChart(canvas, { s, grid, lines, floor, colour, cursor });
    for (const { enc, points } of lines) {
      const v = evaluations.at(enc, s.length);
      showLegendValue(legend, enc, v, v ? null : lastAtOrBefore(points, s.length), s.length);
    }
    if (note) note.textContent = countsText(evaluations.shippedSequences(), lines);
    if (lines.some((l) => l.points.length)) window.__heroDrawnAt ??= performance.now(); // (the budget: lines within 2 s of load)
  }

  // the picked maps at the cursor's length
  function drawMaps(s, force) {
    const widths = [...figures.values()].map((f) => f.canvas.clientWidth);
    if (!client) return;
    [...figures.values()].forEach((f, i) => {
      const r = client.get(f.enc, s.length);
      // the number beside the map is the store's evaluation at the map's own length, the legend's and the lab's;
      // while the map on screen is of a shorter length (the cursor's still computing), no number
      const v = r && r.length === s.length ? evaluations.at(f.enc, s.length) : null;
      keepFocusInside(f, r);
      const k = `${r?.gen}|${r?.length}|${s.length}|${widths[i]}|${s.task}|${s.theme}|${v?.accuracy}|${v?.sequences}|${JSON.stringify(f.focus)}`;
      if (force || k !== f.key) {
        f.key = k;
        drawMapFigure(f, r, s, v, widths[i]);
      }
      showReadout(f);
    });
  }

  const api = {
    /** The live sweep (once the module is loaded: the hero draws the shipped sweep before). */
    setClient(c) {
      client = c;
      last = null;
    },
    /** The task's floor (the shipped sweep itself is the evaluations store's). */
    setFloor(taskFloor) {
      floor = taskFloor;
      last = null;
    },
    build(s) {
      buildLegend(legend, s, colour, onPick);
      maps.replaceChildren();
      figures.clear();
      for (const enc of s.picks) {
        figures.set(enc, createMapFigure(maps, enc, { colour: colour[enc], first: !figures.size, onHover: showReadout, onMark: mark }));
      }
      last = null;
    },
    draw(s, grid, force = false) {
      lastState = s;
      lastGrid = grid;
      const key = JSON.stringify([s.length, s.trainLength, s.picks, s.encodings, s.theme, grid.length, canvas.clientWidth,
        ...s.encodings.map((e) => evaluations.key(e))]);
      if (force || key !== last) {
        last = key;
        drawChart(s, grid);
      }
      drawMaps(s, force);
    },
  };
  return api;
}

// Dragging or clicking on the chart moves the length (snapped by the caller); `geometry()`: where the plot is.
function followPointer(canvas, geometry, onLength) {
  const lengthAt = (ev) => {
    const geom = geometry();
    if (!geom) return null;
    const b = canvas.getBoundingClientRect(), x = ev.clientX - b.left;
    if (x < geom.box.x - 8 || x > geom.box.x + geom.box.w + 8) return null;
    return geom.axis.invert(Math.min(1, Math.max(0, (x - geom.box.x) / geom.box.w)));
  };
  let dragging = false;
  canvas.addEventListener('pointerdown', (ev) => {
    const L = lengthAt(ev);
    if (L == null) return;
    dragging = true;
    canvas.setPointerCapture?.(ev.pointerId);
    onLength(L);
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (!dragging) return;
    const L = lengthAt(ev);
    if (L != null) onLength(L);
  });
  const stop = () => { dragging = false; };
  canvas.addEventListener('pointerup', stop);
  canvas.addEventListener('pointercancel', stop);
}
