// The first screen's figure: accuracy against length (log axis), one line per encoding, the training length
// and the task's floor marked, drawn whole from the start from the shipped checkpoints' measured sweep
// (results.json, story.js shippedSweep) and replaced, line by line, by the live sweep once a model is no
// longer the shipped one (retrained); the live sweep also extends a shipped line past the measured lengths.
// The playhead is a cursor on the curves, nothing is wiped. Beside it, the attention maps of the encodings the
// reader picks (the legend's buttons), at the length under the cursor.
import { NAMES } from './meta.js';
import { cssVar, fitCanvas } from './heatmap.js';
import { drawMapsCanvas } from './sweep-view.js';
import { pct, guessWords } from './results-words.js';
import { encodingColours } from './palette.js';
import { lengthAxis } from './length-axis.js';


/**
 * A line per encoding: the shipped points (when the row's model is the shipped checkpoint), extended past them by
 * the live points at the measured lengths doubled (384 and 512 after …, 192, 256: the same spacing on the log
 * axis); else the live points only. Sorted by length.
 */
export function heroSeries({ shipped, live, fromCheckpoint }) {
  const pts = fromCheckpoint && shipped?.length ? shipped.map(([L, a]) => [L, a]) : [];
  if (!pts.length) return live.map((r) => [r.length, r.accuracy]).sort((a, b) => a[0] - b[0]);
  const top = Math.max(...pts.map(([L]) => L)), ladder = new Set();
  for (const [L] of pts) for (let x = 2 * L; x <= 1 << 20; x *= 2) if (x > top) ladder.add(x);
  for (const r of live) if (ladder.has(r.length)) pts.push([r.length, r.accuracy]);
  return pts.sort((a, b) => a[0] - b[0]);
}

/** The accuracy of a line at length L: the point there, or linear in log L between its neighbours (null outside). */
export function valueAt(points, L) {
  if (!points.length || L < points[0][0] || L > points.at(-1)[0]) return null;
  for (let i = 0; i < points.length; i++) {
    const [x, y] = points[i];
    if (x === L) return y;
    if (x > L) {
      const [x0, y0] = points[i - 1], t = Math.log(L / x0) / Math.log(x / x0);
      return y0 + t * (y - y0);
    }
  }
  return null;
}

export function createHero(root, { client: given = null, encodingsAll, onPick, onLength }) {
  let client = given;
  const canvas = root.querySelector('canvas.hero-chart'), legend = root.querySelector('.hero-legend'), maps = root.querySelector('.hero-maps');
  const colour = encodingColours(encodingsAll);
  let geom = null, last = null, shipped = {}, sources = () => false, floor = null, values = new Map();
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
      fig.append(cap, c);
      maps.append(fig);
      figures.set(enc, { fig, canvas: c, acc, key: null });
    }
  }

  function lines(s) {
    return s.encodings.map((enc) => ({ enc, points: heroSeries({ shipped: shipped[enc], live: client?.results(enc) ?? [], fromCheckpoint: sources(enc) }) }));
  }

  function drawChart(s, grid) {
    const L = lines(s);
    const [w, h, ctx] = fitCanvas(canvas, canvas.clientHeight || 380);
    ctx.clearRect(0, 0, w, h);
    const xs = L.flatMap((l) => l.points.map(([x]) => x));
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
    for (const { enc, points } of order) {
      if (!points.length) continue;
      const picked = s.picks.includes(enc);
      ctx.globalAlpha = picked ? 1 : 0.45;
      ctx.strokeStyle = colour[enc];
      ctx.lineWidth = picked ? 3 : 1.5;
      ctx.beginPath();
      points.forEach(([x, y], i) => (i ? ctx.lineTo(px(x), py(y)) : ctx.moveTo(px(x), py(y))));
      ctx.stroke();
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
    for (const { enc, points } of L) {
      const v = valueAt(points, s.length);
      if (v == null || !s.picks.includes(enc)) continue;
      ctx.fillStyle = colour[enc];
      ctx.beginPath();
      ctx.arc(cx, py(v), 4.5, 0, 2 * Math.PI);
      ctx.fill();
    }
    canvas.dataset.xAxis = 'length T (tokens, log scale)';
    canvas.dataset.yAxis = 'accuracy';
    canvas.dataset.lines = JSON.stringify(Object.fromEntries(L.map((l) => [l.enc, l.points.length])));
    return L;
  }

  return {
    /** The live sweep (once the module is loaded: the hero draws the shipped sweep before). */
    setClient(c) {
      client = c;
      last = null;
    },
    /** The shipped sweep ({encoding: [[length, accuracy, loss]]}), whether a row's model is the shipped one, and the floor. */
    setShipped(sweep, isShipped, taskFloor) {
      shipped = sweep ?? {};
      sources = isShipped;
      floor = taskFloor;
      last = null;
    },
    build(s) {
      buildLegend(s);
      buildMaps(s);
      last = null;
    },
    draw(s, grid, force = false) {
      const key = JSON.stringify([s.length, s.trainLength, s.picks, s.encodings, s.theme, grid.length, canvas.clientWidth,
        ...s.encodings.map((e) => `${client?.results(e).length}|${client?.results(e).at(-1)?.gen}|${sources(e)}`)]);
      if (force || key !== last) {
        last = key;
        const L = drawChart(s, grid);
        values = new Map();
        for (const { enc, points } of L) {
          const b = legend.querySelector(`[data-encoding="${enc}"] .value`);
          const v = valueAt(points, s.length);
          values.set(enc, v);
          if (b) b.textContent = v == null ? '–' : `${pct(v)}%`;
        }
        if (L.some((l) => l.points.length)) window.__heroDrawnAt ??= performance.now(); // (the budget: lines within 2 s of load)
      }
      // the picked maps at the cursor's length
      const widths = [...figures.values()].map((f) => f.canvas.clientWidth);
      if (!client) return;
      [...figures].forEach(([enc, f], i) => {
        const r = client.get(enc, s.length);
        // the accuracy beside the map is the line's at the cursor (the legend's), so the two never disagree
        const v = values.get(enc) ?? null;
        const k = `${r?.gen}|${r?.length}|${s.length}|${widths[i]}|${s.task}|${s.theme}|${v}`;
        if (!force && k === f.key) return;
        f.key = k;
        drawMapsCanvas(f.canvas, r, s, 230, { hideAccuracy: true }, widths[i]);
        f.acc.textContent = v == null ? '…' : `${pct(v)}%`;
        f.canvas.setAttribute('aria-label', r ? `${NAMES[enc]} attention at T = ${r.length}${v == null ? '' : `, accuracy ${pct(v)}%`}` : `${NAMES[enc]} attention, computing`);
      });
    },
  };
}
