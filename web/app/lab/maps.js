// The attention maps as the lab and the hero draw them (canvas only, no page state): one result's maps with the
// training length and a position-status strip, the cell under a point, the keyboard's moves between cells, what a
// cell's readout says, a query row's weights as bars, and a row's accuracy and loss curve's options.
import { pct } from '../shared/results-words.js';
import { answerKeys } from './answer-key.js';
import { cssVar, fitCanvas } from '../shared/heatmap.js';
import { colourLegend, axes } from '../shared/chart.js';
import { interpolateViridis, scaleLinear, scaleBand } from '../../vendor/d3.js';

export const MAP_H = 196; // CSS px of the maps canvas
const ML = 24, LEGEND_W = 42, TOP = 12, BOTTOM = 34; // margins of the maps: y ticks, colour legend, head labels, strip + ticks + titles

/** A token id as the axes write it (one character) and as the readout names it. Vocabulary: tasks.hpp. */
export const tokenShort = (t) => (t === 0 ? '·' : t === 1 ? 'B' : t === 2 ? 'S' : t < 29 ? String.fromCharCode(94 + t) : `${t}`);
export const tokenName = (t) => (t === 0 ? 'PAD' : t === 1 ? 'BOS' : t === 2 ? 'SEP' : t < 29 ? `'${String.fromCharCode(94 + t)}'` : `#${t}`);

/** Attention maps of one result (one bitmap per head) with training-length lines and a position-status strip. */
export function drawMapsCanvas(canvas, r, s, height = MAP_H, marks = {}, cssWidth = canvas.clientWidth) {
  // narrow screens: no taller than the maps need
  const count = r?.bitmaps.length ?? 1, cssW = cssWidth || 300;
  height = Math.round(Math.min(height, (cssW - ML - LEGEND_W - 6 * (count - 1)) / count + TOP + BOTTOM + 2));
  if (canvas.style.height !== `${height}px`) canvas.style.height = `${height}px`;
  const [w, h, ctx] = fitCanvas(canvas, height, cssWidth);
  ctx.clearRect(0, 0, w, h);
  if (!r) {
    ctx.fillStyle = cssVar('--muted', undefined, canvas);
    ctx.font = '12px system-ui, sans-serif';
    ctx.fillText('computing…', 8, 20);
    return null;
  }
  return paintMaps(ctx, w, h, r, s, mapColours(canvas), marks);
}

/** The theme colours paintMaps needs, as CSS custom properties seen by `el`. */
export const mapColours = (el) => ({
  masked: cssVar('--masked', '#8884', el), train: cssVar('--train', '#e0a000', el), muted: cssVar('--muted', undefined, el),
  fg: cssVar('--fg', '#222', el), status: [cssVar('--ok', '#3a9d5d', el), cssVar('--untrained', '#e08a00', el), cssVar('--past', '#d0342c', el)],
});

// Tick positions (token index, label) along a map of T positions `size` px long: every token where they fit, else round positions.
function mapTicks(r, size) {
  const T = r.length;
  if (r.tokens && size / T >= 7) return Array.from(r.tokens, (t, i) => [i, tokenShort(t)]);
  return scaleLinear([0, T - 1], [0, size]).ticks(Math.max(2, Math.floor(size / 34))).filter(Number.isInteger).map((t) => [t, String(t)]);
}

/**
 * One result's maps in a w x h box at the context's origin, with the colours passed in (no style lookups),
 * so the animation export (web/app/lab/animate-export.js, OffscreenCanvas or SVG) draws exactly what the page draws:
 * position (or token) ticks on both axes, the training length, the position-status strip, a colour legend.
 * `marks`: {focus: {k, i, j}, selected: {k, i}} (the keyboard's cell, the query row whose weights are charted).
 * Returns the geometry for hit testing: {x0, y0, size, gap, n, T}.
 */
export function paintMaps(ctx, w, h, r, s, { masked, train: trainColour, muted, fg = muted, status: colours }, marks = {}) {
  const n = r.bitmaps.length, gap = 6, strip = 6;
  // small boxes (the exports' short rows): no tick labels, a narrower legend, so the maps keep their size
  const fits = (ml, lw, bottom) => Math.min(h - TOP - bottom - 2, (w - ml - lw - gap * (n - 1)) / n);
  const legendW = marks.noLegend ? 4 : LEGEND_W; // (noLegend: the caller draws one legend for every map)
  const full = fits(ML, legendW, BOTTOM) >= 70;
  const ml = full ? ML : 0, bottom = full ? BOTTOM : strip + 2, lw = marks.noLegend ? 4 : full ? LEGEND_W : 30;
  const size = Math.max(16, fits(ml, lw, bottom));
  const T = r.length, train = s.trainLength;
  const ticks = full ? mapTicks(r, size) : [], tokenTicks = ticks.length === T && !!r.tokens;
  const keys = s.task && r.tokens && r.tokens.length === T ? answerKeys(s.task, r.tokens) : [], answerColour = 'rgba(255,255,255,.8)';
  ctx.imageSmoothingEnabled = false;
  let labelsEnd = 0;
  for (let k = 0; k < n; k++) {
    const x = ml + k * (size + gap), y = TOP;
    ctx.fillStyle = masked;
    ctx.fillRect(x, y, size, size);
    ctx.drawImage(r.bitmaps[k], x, y, size, size);
    // training length: dashed lines on both axes
    if (train < T) {
      const m = (train / T) * size;
      ctx.strokeStyle = trainColour;
      ctx.setLineDash([3, 2]);
      ctx.beginPath();
      ctx.moveTo(x + m + 0.5, y);
      ctx.lineTo(x + m + 0.5, y + size);
      ctx.moveTo(x, y + m + 0.5);
      ctx.lineTo(x + size, y + m + 0.5);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    // the correct key (copy: the offset diagonal; reverse: the anti-diagonal), as a dotted channel either side of it
    if (keys.length > 1) {
      const [q0, k0] = keys[0], [q1, k1] = keys.at(-1), c = size / T, off = Math.max(2.5, c);
      ctx.strokeStyle = answerColour;
      ctx.setLineDash([2, 3]);
      ctx.beginPath();
      for (const d of [-off, off]) {
        ctx.moveTo(x + (k0 + 0.5) * c + d, y + (q0 + 0.5) * c);
        ctx.lineTo(x + (k1 + 0.5) * c + d, y + (q1 + 0.5) * c);
      }
      ctx.stroke();
      ctx.setLineDash([]);
    }
    // position status strip (key positions 0..T-1)
    const st = r.status;
    let start = 0;
    for (let p = 1; p <= T; p++) {
      if (p === T || st[p] !== st[start]) {
        ctx.fillStyle = colours[st[start]] ?? colours[1];
        ctx.fillRect(x + (start / T) * size, y + size + 2, ((p - start) / T) * size, strip);
        start = p;
      }
    }
    // the charted query row and the keyboard's cell
    const cell = size / T;
    if (marks.selected?.k === k && marks.selected.i < T) {
      ctx.strokeStyle = fg;
      ctx.strokeRect(x - 0.5, y + marks.selected.i * cell - 0.5, (marks.selected.i + 1) * cell + 1, Math.max(1, cell) + 1);
    }
    if (marks.focus?.k === k && marks.focus.i < T) {
      const c = Math.max(4, cell), cx = x + (marks.focus.j + 0.5) * cell - c / 2, cy = y + (marks.focus.i + 0.5) * cell - c / 2;
      ctx.strokeStyle = '#000';
      ctx.strokeRect(cx - 1, cy - 1, c + 2, c + 2);
      ctx.strokeStyle = '#fff';
      ctx.strokeRect(cx, cy, c, c);
    }
  }
  // The text after the maps, one font at a time (setting ctx.font parses it, and a change of length redraws
  // every row): key ticks under each strip, query ticks left of the first map, then the head labels.
  ctx.fillStyle = muted;
  ctx.font = tokenTicks ? '8px system-ui, sans-serif' : '9px system-ui, sans-serif';
  ctx.textAlign = 'center';
  for (let k = 0; k < n; k++)
    for (const [i, label] of ticks) ctx.fillText(label, ml + k * (size + gap) + ((i + 0.5) / T) * size, TOP + size + strip + 11);
  ctx.textAlign = 'right';
  for (const [i, label] of ticks) ctx.fillText(label, ml - 3, TOP + ((i + 0.5) / T) * size + 3);
  ctx.textAlign = 'left';
  ctx.font = '10px system-ui, sans-serif';
  for (let k = 0; k < n; k++) {
    if (!(n < 4 || k === 0 || size > 60)) continue;
    const x = ml + k * (size + gap), text = n > 1 ? `H${r.heads[k] + 1}` : `L${(r.layer ?? 0) + 1} H${r.heads[k] + 1}`;
    ctx.fillText(text, x, 9);
    labelsEnd = x + ctx.measureText(text).width;
  }
  // axis titles and the colour legend
  if (full) {
    const long = `rows: query position i ↓ · columns: key position j →${tokenTicks ? ' (tokens: B = BOS, S = SEP, · = PAD)' : ''}`;
    ctx.fillText(ctx.measureText(long).width <= w ? long : 'query i ↓ · key j →', 0, TOP + size + strip + 26);
  }
  const lx = ml + n * (size + gap) - gap + 8;
  if (!marks.noLegend) colourLegend(ctx, { x: lx, y: TOP + 12, w: full ? 7 : 5, h: Math.max(20, size - 12) }, { interpolate: interpolateViridis, domain: [0, 1], sqrt: true,
    title: 'weight', colours: { muted, fg: muted }, font: 9, ticks: full ? undefined : [0, 1] });
  if (ctx.canvas?.dataset) {
    ctx.canvas.dataset.xAxis = 'key position j';
    ctx.canvas.dataset.yAxis = 'query position i';
  }
  // the length and accuracy, right-aligned above the maps where they fit beside the head labels
  ctx.fillStyle = muted;
  // (marks.hideAccuracy: the caller states the accuracy itself, e.g. the hero's, from its own measurement)
  // (marks.accuracy: the page's evaluation at this length, evaluations.js, where it is not this result's own)
  const text = r.length !== s.length ? `T=${r.length} (computing ${s.length}…)` : `T=${r.length}${marks.hideAccuracy ? '' : ` · accuracy ${pct(marks.accuracy ?? r.accuracy)}%`}`;
  const right = Math.min(w, ml + n * (size + gap) - gap);
  if (right - ctx.measureText(text).width > labelsEnd + 8) {
    ctx.textAlign = 'right';
    ctx.fillText(text, right, 9);
    ctx.textAlign = 'left';
  }
  return { x0: ml, y0: TOP, size, gap, n, T };
}

/** The map cell {k, i, j} under CSS px (x, y) of a maps canvas with geometry `g`, or null. */
export function cellAt(g, x, y) {
  if (!g) return null;
  const k = Math.floor((x - g.x0) / (g.size + g.gap)), dx = x - g.x0 - k * (g.size + g.gap), dy = y - g.y0;
  if (k < 0 || k >= g.n || dx < 0 || dx >= g.size || dy < 0 || dy >= g.size) return null;
  return { k, i: Math.min(g.T - 1, Math.floor((dy / g.size) * g.T)), j: Math.min(g.T - 1, Math.floor((dx / g.size) * g.T)) };
}

/** The weights row of query i in map k of `wt` (client.weights), keys 0..T-1. */
export const rowOf = (wt, k, i) => wt.probs.subarray((k * wt.length + i) * wt.length, (k * wt.length + i + 1) * wt.length);
const argmax = (row, upTo) => {
  let m = 0;
  for (let j = 1; j <= upTo; j++) if (row[j] > row[m]) m = j;
  return m;
};

/** What the readout says about cell {k, i, j} of result r with weights wt (null while they are fetched). */
export function readoutText(name, r, s, wt, { k, i, j }) {
  const head = `${name}, layer ${(r.layer ?? 0) + 1} head ${r.heads[k] + 1}, T = ${r.length}`;
  const tok = (p) => (r.tokens ? ` ${tokenName(r.tokens[p])}` : '');
  if (!wt || wt.length !== r.length) return `${head}: query ${i}${tok(i)} → key ${j}${tok(j)}: fetching the weights…`;
  const row = rowOf(wt, k, i), best = argmax(row, i);
  const here = j > i ? 'masked (a key after the query), weight 0' : `weight ${row[j].toFixed(3)}`;
  return `${head}: query ${i}${tok(i)} → key ${j}${tok(j)}: ${here}. Query ${i} attends most to key ${best}${tok(best)} (weight ${row[best].toFixed(3)}).` +
    correctKeyText(r, s, row, i, tok);
}

/** Where the task has a correct key for query i (answer-key.js): which key it is and the weight on it. */
function correctKeyText(r, s, row, i, tok) {
  if (!r.tokens || !s?.task) return '';
  const key = answerKeys(s.task, r.tokens).find(([q]) => q === i)?.[1];
  if (key == null) return '';
  return ` The correct key is key ${key}${tok(key)} (weight ${row[key].toFixed(3)})${argmax(row, i) === key ? ': the head finds it' : ''}.`;
}

/**
 * drawChart options for a row's accuracy (solid) and loss (dashed, scaled by lossMax: the smallest whole number of
 * nats at or above every loss shown, so no loss is clipped) against length, x from lo to hi (log), the training
 * length and the current length (a cursor) marked. `colours`: {accent, loss, train, fg, and optionally muted, grid}.
 */
export function curveOptions(shown, s, [lo, hi], colours) {
  const lossMax = Math.max(1, Math.ceil(Math.max(0, ...shown.map((r) => r.loss).filter(Number.isFinite))));
  return {
    x: [lo, hi], y: [0, 1], xLog: true, colours, lossMax,
    series: [
      { points: shown.map((r) => [r.length, r.accuracy]), colour: colours.accent, width: 2, dots: true, hollow: shown.map((r) => !!r.partial) },
      { points: shown.map((r) => [r.length, r.loss / lossMax]), colour: colours.loss, dash: [4, 3] },
    ],
    marks: [
      { x: s.trainLength, label: 'train', colour: colours.train },
      ...(s.length !== s.trainLength ? [{ x: s.length, label: `T=${s.length}`, colour: colours.fg, dash: [1, 2] }] : []),
    ],
    xTicks: [...new Set([s.trainLength, 4 * s.trainLength, 8 * s.trainLength, hi])].filter((x) => x <= hi),
    yTicks: [0, 0.5, 1],
    // plain words, the longest that fits: the loss is drawn on the same axis, its top at lossMax (the lab's text says
    // what loss is and its unit)
    yLabel: [`accuracy —  (0 to 100%)   ·   loss - -  (0 to ${lossMax} at the top)`, `accuracy —  ·  loss - -  (0 to ${lossMax})`, `accuracy —  ·  loss - -`],
    yLabelTop: true,
    xLabel: 'length T (tokens, log scale)',
  };
}

/** One query row's weights over its keys as a bar chart (BertViz's head view, for one query). */
export function drawRowBars(canvas, name, r, wt, sel) {
  const [w, h, ctx] = fitCanvas(canvas, 110);
  ctx.clearRect(0, 0, w, h);
  const T = wt.length, i = Math.min(sel.i, T - 1), row = rowOf(wt, sel.k, i), best = argmax(row, i);
  const box = { x: 34, y: 16, w: w - 44, h: h - 50 };
  const x = scaleBand([...Array(i + 1).keys()], [box.x, box.x + box.w]).paddingInner(i > 64 ? 0 : 0.15); // the keys query i may see
  const y = scaleLinear([0, Math.max(0.05, row[best])], [box.y + box.h, box.y]).nice();
  const colour = cssVar('--accent', '#1f77b4', canvas), muted = cssVar('--muted', undefined, canvas);
  for (let j = 0; j <= i; j++) {
    ctx.fillStyle = j === best ? cssVar('--train', '#e0a000', canvas) : colour;
    ctx.fillRect(x(j), y(row[j]), Math.max(0.5, x.bandwidth()), box.y + box.h - y(row[j]));
  }
  const keyTicks = scaleLinear([0, i], [0, 1]).ticks(Math.max(2, Math.floor(box.w / 40))).filter(Number.isInteger);
  axes(ctx, box, (j) => x(j) + x.bandwidth() / 2, y, { xTicks: keyTicks, yTicks: y.ticks(3), grid: false, font: 9,
    xTitle: 'key position j', yTitle: 'weight' });
  ctx.fillStyle = muted;
  ctx.font = '10px system-ui, sans-serif';
  ctx.textAlign = 'right';
  const tok = r.tokens ? ` ${tokenName(r.tokens[i])}` : '';
  ctx.fillText(`${name} H${wt.heads[sel.k] + 1} · query ${i}${tok} · peak: key ${best} (${row[best].toFixed(3)})`, w - 4, 10);
}

/**
 * A map's keyboard cell `f` ({k, i, j}: head, query, key) moved by `key` within result `r` (the lab's and the hero's
 * maps alike): arrows one cell, Page Up/Down ten queries, Home the first key, End the query itself, [ and ] the head;
 * `extra` adds keys. Returns false for a key it does not take.
 */
export function moveCell(f, key, r, extra = {}) {
  const T = r.length, n = r.bitmaps.length;
  const moves = { ArrowUp: () => f.i--, ArrowDown: () => f.i++, ArrowLeft: () => f.j--, ArrowRight: () => f.j++,
    PageUp: () => (f.i -= 10), PageDown: () => (f.i += 10), Home: () => (f.j = 0), End: () => (f.j = f.i),
    '[': () => (f.k = (f.k + n - 1) % n), ']': () => (f.k = (f.k + 1) % n), ...extra };
  if (!moves[key]) return false;
  moves[key]();
  f.i = Math.max(0, Math.min(T - 1, f.i));
  f.j = Math.max(0, Math.min(T - 1, f.j));
  return true;
}
