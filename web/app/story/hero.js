// The first screen's figure: accuracy against length (log axis), one line per encoding, the training length
// and the task's floor marked. Every point is an evaluation of the page's one store (evaluations.js): the
// shipped checkpoints' measured sweep, drawn whole from the start, and the live sweep's points (a retrained
// model, a RoPE scaling, a length not measured), drawn hollow and dashed while they rest on fewer sequences than
// the shipped ones. The legend and the number beside each map are the store's evaluation at the cursor, the
// same number the lab's row shows.
// The playhead is a cursor on the curves, nothing is wiped. Beside it, the attention maps of the encodings the
// reader picks (the legend's buttons), at the length under the cursor.
import { NAMES } from '../shared/meta.js';
import { cssVar, fitCanvas } from '../shared/heatmap.js';
import { drawMapsCanvas, cellAt, readoutText, moveCell } from '../lab/sweep-view.js';
import { pct, guessWords } from '../shared/results-words.js';
import { sequencesText } from '../lab/evaluations.js';
import { encodingColours } from '../shared/palette.js';
import { lengthAxis } from '../shared/length-axis.js';


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

  // dragging or clicking on the chart moves the length (snapped by the caller)
  const lengthAt = (ev) => {
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

  function buildLegend(s) {
    legend.replaceChildren();
    for (const enc of s.encodings) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'hero-key';
      b.dataset.encoding = enc;
      b.setAttribute('aria-pressed', String(s.picks.includes(enc)));
      b.title = `show ${NAMES[enc]}'s attention beside the chart`;
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = colour[enc];
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = NAMES[enc];
      const val = document.createElement('span');
      val.className = 'value';
      b.append(sw, name, val);
      b.addEventListener('click', () => onPick(enc));
      legend.append(b);
    }
  }

  function buildMaps(s) {
    maps.replaceChildren();
    figures.clear();
    for (const enc of s.picks) {
      const fig = document.createElement('figure');
      fig.className = 'hero-map';
      fig.dataset.encoding = enc;
      const cap = document.createElement('figcaption');
      const name = document.createElement('strong');
      name.textContent = NAMES[enc];
      name.style.borderColor = colour[enc];
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
      readout.textContent = figures.size ? '' : READOUT_HINT; // (the hint once, under the first map)
      fig.append(cap, c, readout);
      maps.append(fig);
      const f = { fig, canvas: c, acc, readout, key: null, geom: null, shown: null, hover: null, focus: null, readoutKey: null };
      figures.set(enc, f);
      // a readout of the cell under the pointer (a tap on a touch screen), as the lab's maps give
      const at = (ev) => {
        const b = c.getBoundingClientRect();
        return cellAt(f.geom, ev.clientX - b.left, ev.clientY - b.top);
      };
      const hover = (cell) => {
        if (JSON.stringify(cell) === JSON.stringify(f.hover)) return;
        f.hover = cell;
        showReadout(enc, f);
      };
      // the highlighted cell (the keyboard's, or the one clicked or tapped) is drawn on the map: redraw it
      const mark = () => {
        f.key = null;
        if (lastState && lastGrid) api.draw(lastState, lastGrid);
      };
      c.addEventListener('pointermove', (ev) => hover(at(ev)));
      c.addEventListener('click', (ev) => {
        const cell = at(ev);
        if (cell) f.focus = { ...cell };
        hover(cell);
        mark();
      });
      c.addEventListener('pointerleave', () => hover(null));
      c.addEventListener('focus', () => {
        if (!f.focus && f.shown) f.focus = { k: 0, i: 0, j: 0 };
        mark();
      });
      c.addEventListener('blur', () => {
        f.focus = null;
        mark();
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
        mark();
      });
    }
  }

  // the readout of a map's hovered cell, from the exact weights of the map drawn (fetched on demand, as the lab's)
  function showReadout(enc, f) {
    const r = f.shown, cell = f.hover ?? f.focus; // the pointer's cell, else the keyboard's
    const wt = r && cell ? client?.weights(enc, r.length) ?? null : null;
    const key = `${r?.gen}|${r?.length}|${!!wt}|${JSON.stringify(cell)}`;
    if (key === f.readoutKey) return;
    f.readoutKey = key;
    if (!r || !cell) {
      f.readout.textContent = f === figures.values().next().value ? READOUT_HINT : '';
      delete f.readout.dataset.cell;
      return;
    }
    f.readout.textContent = readoutText(NAMES[enc], r, lastState, wt, cell);
    f.readout.dataset.cell = JSON.stringify({ ...cell, length: r.length });
  }

  function lines(s) {
    return s.encodings.map((enc) => ({ enc, points: evaluations.series(enc) }));
  }

  function drawChart(s, grid) {
    const L = lines(s);
    const [w, h, ctx] = fitCanvas(canvas, canvas.clientHeight || 380);
    ctx.clearRect(0, 0, w, h);
    const xs = L.flatMap((l) => l.points.map((p) => p.length));
    const x0 = Math.min(grid[0], ...xs), x1 = Math.max(grid.at(-1), ...xs);
    const box = { x: 40, y: 22, w: w - 52, h: h - 64 };
    const along = lengthAxis(x0, x1), px = (v) => box.x + along(v) * box.w, py = (v) => box.y + (1 - v) * box.h;
    geom = { box, axis: along };
    const muted = cssVar('--muted', '#666', canvas), fg = cssVar('--fg', '#222', canvas), grid0 = cssVar('--grid', '#8884', canvas), train = cssVar('--train', '#b7791f', canvas);
    ctx.font = '12px system-ui, sans-serif';
    // grid, y ticks
    ctx.strokeStyle = grid0;
    ctx.lineWidth = 1;
    ctx.fillStyle = muted;
    ctx.textAlign = 'right';
    for (const t of [0, 0.25, 0.5, 0.75, 1]) {
      ctx.beginPath();
      ctx.moveTo(box.x, Math.round(py(t)) + 0.5);
      ctx.lineTo(box.x + box.w, Math.round(py(t)) + 0.5);
      ctx.stroke();
      ctx.fillText(`${t * 100}%`, box.x - 5, py(t) + 4);
    }
    ctx.textAlign = 'left';
    ctx.fillText('accuracy', box.x, box.y - 8);
    // x ticks: multiples of the training length
    ctx.textAlign = 'center';
    for (let m = 0.5; s.trainLength * m <= x1 * 1.001; m *= 2) {
      const v = s.trainLength * m;
      if (v < x0) continue;
      ctx.fillStyle = m === 1 ? train : fg;
      ctx.font = m === 1 ? 'bold 12px system-ui, sans-serif' : '12px system-ui, sans-serif';
      ctx.fillText(m === 1 ? '1× (trained)' : `${m}×`, px(v), box.y + box.h + 16);
      ctx.fillStyle = muted;
      ctx.font = '11px system-ui, sans-serif';
      ctx.fillText(`${v}`, px(v), box.y + box.h + 30);
    }
    ctx.textAlign = 'right';
    const axis = ['length T (tokens, log scale) and its multiple of the training length', 'length T (tokens, log scale), multiple of training']
      .find((t) => ctx.measureText(t).width <= box.x + box.w) ?? 'length T (log scale)'; // the short one on a phone
    ctx.fillText(axis, box.x + box.w, box.y + box.h + 44 > h - 2 ? h - 2 : box.y + box.h + 44);
    // training length and floor
    ctx.setLineDash([5, 4]);
    ctx.strokeStyle = train;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(px(s.trainLength) + 0.5, box.y);
    ctx.lineTo(px(s.trainLength) + 0.5, box.y + box.h);
    ctx.stroke();
    if (floor) {
      // the floor: flat, or (floor.points, e.g. copy's bag-of-tokens guess) a line through its value at each measured length
      const pts = floor.points?.length ? floor.points.filter(([L]) => L >= x0 && L <= x1) : null;
      ctx.strokeStyle = muted;
      ctx.lineWidth = 1;
      ctx.beginPath();
      if (pts?.length) pts.forEach(([L, a], i) => (i ? ctx.lineTo(px(L), py(a) + 0.5) : ctx.moveTo(px(L), py(a) + 0.5)));
      else {
        ctx.moveTo(box.x, py(floor.accuracy) + 0.5);
        ctx.lineTo(box.x + box.w, py(floor.accuracy) + 0.5);
      }
      ctx.stroke();
      ctx.fillStyle = muted;
      ctx.textAlign = 'left';
      const at = pts?.length ? pts.find(([L]) => L === s.trainLength) ?? pts[0] : null;
      const [lx, la] = at ? [px(at[0]), at[1]] : [box.x, floor.accuracy];
      // the longest label that fits (a phone: the shortest), never past the chart's edge; the guess in plain words
      const v = `${Number((100 * la).toFixed(1))}%`, where = at ? ` at T = ${at[0]}` : '';
      const labels = [`${guessWords(floor.name)}: ${v}${where}${at ? ', falling with the length' : ''}`, `${guessWords(floor.name)}: ${v}${where}`, `${guessWords(floor.name)}: ${v}`, `a guess: ${v}`];
      const label = labels.find((t) => Math.min(lx + 4, box.x + 4) + ctx.measureText(t).width <= box.x + box.w) ?? labels.at(-1);
      canvas.dataset.floorLabel = label;
      ctx.fillText(label, Math.max(box.x, Math.min(lx + 4, box.x + box.w - ctx.measureText(label).width)), py(la) - 5);
    }
    ctx.setLineDash([]);
    // lines: the picked ones on top and thicker
    const order = [...L].sort((a, b) => s.picks.includes(a.enc) - s.picks.includes(b.enc));
    // A line is drawn through its full points (the shipped measurement, or a live one on as many sequences) solid;
    // live points on fewer sequences are hollow rings: past the measured ones (or where there are none) joined by a
    // dashed line, between measured ones a ring alone on the picked lines (the measured line stays the line).
    for (const { enc, points } of order) {
      if (!points.length) continue;
      const picked = s.picks.includes(enc);
      const full = points.filter((p) => !p.partial);
      const lo = full[0]?.length ?? Infinity, hi = full.at(-1)?.length ?? -Infinity;
      const inside = (p) => p.length > lo && p.length < hi;
      const path = points.filter((p) => !p.partial || !inside(p)); // the line: full points, and live ones outside them
      ctx.globalAlpha = picked ? 1 : 0.45;
      ctx.strokeStyle = colour[enc];
      ctx.lineWidth = picked ? 3 : 1.5;
      for (let i = 1; i < path.length; i++) {
        const a = path[i - 1], b = path[i];
        ctx.setLineDash(a.partial || b.partial ? [4, 3] : []);
        ctx.beginPath();
        ctx.moveTo(px(a.length), py(a.accuracy));
        ctx.lineTo(px(b.length), py(b.accuracy));
        ctx.stroke();
      }
      ctx.setLineDash([]);
      ctx.lineWidth = 1.5;
      ctx.fillStyle = cssVar('--bg', '#fff', canvas);
      for (const p of points) {
        if (!p.partial || (inside(p) && !picked)) continue;
        ctx.beginPath();
        ctx.arc(px(p.length), py(p.accuracy), picked ? 3.5 : 2.5, 0, 2 * Math.PI);
        ctx.fill();
        ctx.stroke();
      }
      ctx.globalAlpha = 1;
    }
    // the cursor: the current length, with each picked line's value
    const cx = px(Math.min(x1, Math.max(x0, s.length)));
    ctx.strokeStyle = fg;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(Math.round(cx) + 0.5, box.y);
    ctx.lineTo(Math.round(cx) + 0.5, box.y + box.h);
    ctx.stroke();
    ctx.fillStyle = fg;
    ctx.font = 'bold 12px system-ui, sans-serif';
    ctx.textAlign = cx > box.x + box.w - 120 ? 'right' : 'left';
    const x = s.length / s.trainLength;
    ctx.fillText(`T = ${s.length} (${Number.isInteger(x) ? x : x.toFixed(2)}×)`, cx + (ctx.textAlign === 'left' ? 5 : -5), box.y - 8);
    for (const { enc } of L) {
      const v = evaluations.at(enc, s.length);
      if (v == null || !s.picks.includes(enc)) continue;
      ctx.fillStyle = colour[enc];
      ctx.beginPath();
      ctx.arc(cx, py(v.accuracy), 4.5, 0, 2 * Math.PI);
      ctx.fill();
    }
    canvas.dataset.xAxis = 'length T (tokens, log scale)';
    canvas.dataset.yAxis = 'accuracy';
    canvas.dataset.lines = JSON.stringify(Object.fromEntries(L.map((l) => [l.enc, l.points.length])));
    // the points drawn, each with the sequences it rests on (for tests and exports)
    canvas.dataset.points = JSON.stringify(Object.fromEntries(L.map((l) => [l.enc, l.points.map((p) => [p.length, p.accuracy, p.sequences, p.measured])])));
    return L;
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
      buildLegend(s);
      buildMaps(s);
      last = null;
    },
    draw(s, grid, force = false) {
      lastState = s;
      lastGrid = grid;
      const key = JSON.stringify([s.length, s.trainLength, s.picks, s.encodings, s.theme, grid.length, canvas.clientWidth,
        ...s.encodings.map((e) => evaluations.key(e))]);
      if (force || key !== last) {
        last = key;
        const L = drawChart(s, grid);
        for (const { enc, points } of L) {
          const b = legend.querySelector(`[data-encoding="${enc}"] .value`);
          if (b) legendValue(b, enc, points, s);
        }
        if (note) note.textContent = countsText(L);
        if (L.some((l) => l.points.length)) window.__heroDrawnAt ??= performance.now(); // (the budget: lines within 2 s of load)
      }
      // the picked maps at the cursor's length
      const widths = [...figures.values()].map((f) => f.canvas.clientWidth);
      if (!client) return;
      [...figures].forEach(([enc, f], i) => {
        const r = client.get(enc, s.length);
        // the number beside the map is the store's evaluation at the map's own length, the legend's and the lab's;
        // while the map on screen is of a shorter length (the cursor's still computing), no number
        const v = r && r.length === s.length ? evaluations.at(enc, s.length) : null;
        if (f.focus && r) { // (a cell kept from a longer map stays inside this one)
          f.focus.i = Math.min(f.focus.i, r.length - 1);
          f.focus.j = Math.min(f.focus.j, r.length - 1);
          if (f.focus.k >= r.bitmaps.length) f.focus.k = 0;
        }
        const k = `${r?.gen}|${r?.length}|${s.length}|${widths[i]}|${s.task}|${s.theme}|${v?.accuracy}|${v?.sequences}|${JSON.stringify(f.focus)}`;
        if (force || k !== f.key) {
          f.key = k;
          f.shown = r;
          f.geom = drawMapsCanvas(f.canvas, r, s, 230, { hideAccuracy: true, ...(f.focus ? { focus: f.focus } : {}) }, widths[i]);
          if (f.geom) f.canvas.dataset.geom = JSON.stringify(f.geom); // where the cells are (CSS px), for pointer tests
          if (f.focus) f.canvas.dataset.focus = JSON.stringify(f.focus); // the highlighted cell (drawn on the map)
          else delete f.canvas.dataset.focus;
          f.acc.textContent = v ? `${pct(v.accuracy)}%` : '…';
          f.acc.title = v ? `accuracy at T = ${s.length}, ${v.measured ? 'measured' : 'live'} on ${sequencesText(v.sequences)}` : `T = ${s.length} is being computed`;
          f.acc.classList.toggle('live', !!v?.partial);
          f.canvas.setAttribute('aria-label', r ? `${NAMES[enc]} attention at T = ${r.length}${v ? `, accuracy ${pct(v.accuracy)}%` : r.length !== s.length ? `, computing T = ${s.length}` : ''}`
            : `${NAMES[enc]} attention, computing`);
        }
        showReadout(enc, f);
      });
    },
  };
  return api;

  // The legend's number: the evaluation at the cursor; while it computes, the last one before it, with its length
  // (never a dash where a number was).
  function legendValue(b, enc, points, s) {
    const v = evaluations.at(enc, s.length), prev = v ? null : lastAtOrBefore(points, s.length);
    const shown = v ?? prev;
    b.textContent = shown ? `${pct(shown.accuracy)}%${v ? '' : ` at ${shown.length}`}` : '…';
    b.classList.toggle('live', !!shown?.partial);
    b.classList.toggle('stale', !v && !!prev);
    b.title = shown ? `accuracy at T = ${shown.length}, ${shown.measured ? 'measured' : 'live'} on ${sequencesText(shown.sequences)}${v ? '' : `; T = ${s.length} is being computed`}`
      : `T = ${s.length} is being computed`;
  }

  // What the points rest on, in words: the shipped count, and the live points' counts where any are drawn.
  function countsText(L) {
    const n = evaluations.shippedSequences(), live = new Set();
    for (const { points } of L) for (const p of points) if (p.partial) live.add(p.sequences);
    const counts = [...live].sort((a, b) => a - b);
    const shippedWords = n ? `Solid lines: the shipped models measured on ${sequencesText(n)} a length` : '';
    const liveWords = counts.length ? `${shippedWords ? 'h' : 'H'}ollow rings and dashed lines: computed here on ${counts.length > 1 ? `${counts[0]} to ${sequencesText(counts.at(-1))}` : sequencesText(counts[0])}` : '';
    return [shippedWords, liveWords].filter(Boolean).join('; ') + (shippedWords || liveWords ? '.' : '');
  }
}

const READOUT_HINT = 'Hover or tap a map, or focus it and use the arrow keys, to read a weight and the correct key.';
