// The plots of "Your model, past its context", on canvas with d3 scales and the page's shared axes (chart.js):
// perplexity by position, one line per scaling; the chosen layer's heads' attention, pooled; attention entropy and
// first-token mass against length. Each canvas records what it shows in data- attributes (for tests and readers).
import { scaleLinear, scaleLog, schemeTableau10, interpolateViridis } from '../../vendor/d3.js';
import { axes, fmtTick } from '../shared/chart.js';
import { fitCanvas, cssVar, lutFor } from '../shared/heatmap.js';
import { ROPE_SCALINGS } from '../shared/state.js';
import { SCALING_NAMES, bucketPerplexity } from './plan.js';

export const SCALING_COLOURS = Object.fromEntries(ROPE_SCALINGS.map((t, i) => [t, schemeTableau10[i]]));

function clear(canvas, height) {
  const [w, h, ctx] = fitCanvas(canvas, height);
  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = cssVar('--bg', '#fff', canvas);
  ctx.fillRect(0, 0, w, h);
  return { w, h, ctx };
}

function legend(ctx, x, y, items, maxWidth) {
  ctx.save();
  ctx.font = '12px system-ui, sans-serif';
  let cx = x, cy = y;
  for (const it of items) {
    const width = 22 + ctx.measureText(it.label).width + 14;
    if (cx + width > x + maxWidth && cx > x) {
      cx = x;
      cy += 16;
    }
    ctx.strokeStyle = it.colour;
    ctx.lineWidth = 2.5;
    ctx.setLineDash(it.dash ?? []);
    ctx.beginPath(); ctx.moveTo(cx, cy - 4); ctx.lineTo(cx + 16, cy - 4); ctx.stroke();
    ctx.fillStyle = cssVar('--fg', '#222', ctx.canvas);
    ctx.fillText(it.label, cx + 20, cy);
    cx += width;
  }
  ctx.restore();
  return cy;
}

function vmark(ctx, box, x, value, label) {
  const px = Math.round(x(value)) + 0.5;
  if (px < box.x || px > box.x + box.w) return;
  ctx.save();
  ctx.strokeStyle = cssVar('--train', '#b7791f', ctx.canvas);
  ctx.fillStyle = ctx.strokeStyle;
  ctx.setLineDash([5, 3]);
  ctx.beginPath(); ctx.moveTo(px, box.y); ctx.lineTo(px, box.y + box.h); ctx.stroke();
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = px > box.x + box.w - 120 ? 'right' : 'left';
  ctx.fillText(label, px + (ctx.textAlign === 'left' ? 4 : -4), box.y + 12);
  ctx.restore();
}

// Ticks for a log axis from lo to hi: 1, 2, 5 per decade (1, 1.5, 2, 3, 5, 7 when it spans less than one), at most 8.
function logTicks(lo, hi) {
  const steps = hi / lo < 10 ? [1, 1.5, 2, 3, 5, 7] : [1, 2, 5];
  const out = [];
  for (let d = Math.floor(Math.log10(lo)); d <= Math.ceil(Math.log10(hi)); d++)
    for (const m of steps) {
      const t = m * 10 ** d;
      if (t >= lo && t <= hi) out.push(+t.toPrecision(3));
    }
  return out.length > 8 ? out.filter((t) => Math.abs(Math.log10(t) % 1) < 1e-9 || Math.abs(Math.log10(t / 2) % 1) < 1e-9) : out;
}

/**
 * Perplexity by position bucket, one line per scaling in `series` ({type: nll}), over tokens 1..length, the original
 * context marked. `chosen`: the scaling drawn thickest. A line still streaming in (shorter than length - 1) is drawn as far
 * as its losses go. Returns the buckets drawn, per scaling.
 */
export function drawPerplexity(canvas, series, { context, length, chosen, height = 300 }) {
  const { w, h, ctx } = clear(canvas, height);
  const types = ROPE_SCALINGS.filter((t) => series[t]);
  const buckets = Object.fromEntries(types.map((t) => [t, bucketPerplexity(series[t], 32, length - 1)])); // (a line streaming in: its start)
  const legendBottom = legend(ctx, 58, 16, types.map((t) => ({ label: SCALING_NAMES[t], colour: SCALING_COLOURS[t] })), w - 70);
  const box = { x: 58, y: legendBottom + 24, w: w - 72, h: h - legendBottom - 24 - 40 };
  const all = types.flatMap((t) => buckets[t].map((b) => b.ppl)).filter(Number.isFinite);
  const lo = all.length ? Math.max(1, Math.min(...all) * 0.9) : 1, hi = all.length ? Math.max(lo * 2, Math.max(...all) * 1.1) : 100;
  const x = scaleLinear([0, length], [box.x, box.x + box.w]);
  const y = scaleLog([lo, hi], [box.y + box.h, box.y]);
  axes(ctx, box, x, y, { xTitle: 'token position in the passage', yTitle: 'perplexity (log scale)', rotateY: false, xFormat: fmtTick,
    yTicks: logTicks(lo, hi) });
  vmark(ctx, box, x, context, `original context ${context.toLocaleString('en-US')}`);
  ctx.save();
  ctx.beginPath();
  ctx.rect(box.x, box.y, box.w, box.h);
  ctx.clip();
  for (const t of types) {
    ctx.strokeStyle = SCALING_COLOURS[t];
    ctx.lineWidth = t === chosen ? 3 : 1.6;
    ctx.beginPath();
    buckets[t].forEach((b, i) => {
      const px = x((b.from + b.to) / 2), py = y(Math.max(lo, b.ppl));
      if (i === 0) ctx.moveTo(px, py);
      else ctx.lineTo(px, py);
    });
    ctx.stroke();
    if (buckets[t].length === 1) { // a line just starting to stream in: its one point, as a dot
      const [b] = buckets[t];
      ctx.fillStyle = SCALING_COLOURS[t];
      ctx.beginPath();
      ctx.arc(x((b.from + b.to) / 2), y(Math.max(lo, b.ppl)), 3, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
  ctx.restore();
  canvas.dataset.series = String(types.length);
  canvas.dataset.scalings = types.join(',');
  return buckets;
}

/** The chosen layer's heads as small multiples: `maps` [heads, px, px] pooled attention, each scaled to its own peak. */
export function drawHeads(canvas, { maps, peaks, px, heads }) {
  const cols = Math.min(heads, Math.max(2, Math.floor((canvas.clientWidth || canvas.parentElement.clientWidth) / 110)));
  const rows = Math.ceil(heads / cols);
  const cw = canvas.clientWidth || canvas.parentElement.clientWidth;
  const cell = Math.max(40, Math.min(160, Math.floor((cw - 8 * (cols - 1)) / cols)));
  const height = rows * (cell + 22);
  const { ctx } = clear(canvas, height);
  ctx.font = '12px system-ui, sans-serif';
  const lut = lutFor(interpolateViridis);
  const img = new OffscreenCanvasLike(px);
  for (let hd = 0; hd < heads; hd++) {
    const peak = peaks[hd] > 0 ? peaks[hd] : 1;
    const data = img.ctx.createImageData(px, px);
    for (let i = 0; i < px * px; i++) {
      const v = maps[hd * px * px + i];
      const k = Math.round(Math.sqrt(Math.max(0, Math.min(1, v / peak))) * 255) * 3;
      data.data[i * 4] = lut[k]; data.data[i * 4 + 1] = lut[k + 1]; data.data[i * 4 + 2] = lut[k + 2]; data.data[i * 4 + 3] = 255;
    }
    img.ctx.putImageData(data, 0, 0);
    const cx = (hd % cols) * (cell + 8), cy = Math.floor(hd / cols) * (cell + 22);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(img.canvas, cx, cy, cell, cell);
    ctx.fillStyle = cssVar('--muted', '#666', canvas);
    ctx.fillText(`head ${hd + 1}`, cx, cy + cell + 14);
  }
  canvas.dataset.heads = String(heads);
}

// A small canvas to put one head's pixels on before scaling them up.
class OffscreenCanvasLike {
  constructor(px) {
    this.canvas = document.createElement('canvas');
    this.canvas.width = this.canvas.height = px;
    this.ctx = this.canvas.getContext('2d');
  }
}

/** Attention entropy (left axis, nats) and first-token mass (right axis, %) against length: `points` [{length, entropy, sink}]. */
export function drawStats(canvas, points, { context, height = 240 }) {
  const { w, h, ctx } = clear(canvas, height);
  const ent = cssVar('--accent', '#2b6cb0', canvas), sink = cssVar('--loss', '#c2410c', canvas);
  const lb = legend(ctx, 58, 16, [{ label: 'attention entropy (nats, left)', colour: ent }, { label: 'mass on the first token (%, right)', colour: sink, dash: [6, 3] }], w - 70);
  const box = { x: 42, y: lb + 14, w: w - 84, h: h - lb - 14 - 40 };
  const xs = points.map((p) => p.length);
  const x = scaleLinear([0, Math.max(context, ...xs)], [box.x, box.x + box.w]);
  const ye = scaleLinear([0, Math.max(1, ...points.map((p) => p.entropy)) * 1.15], [box.y + box.h, box.y]);
  const ys = scaleLinear([0, Math.min(100, Math.max(5, ...points.map((p) => 100 * p.sink)) * 1.15)], [box.y + box.h, box.y]);
  axes(ctx, box, x, ye, { xTitle: 'length (tokens)', yTitle: '', xFormat: fmtTick });
  ctx.save();
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillStyle = cssVar('--muted', '#666', canvas);
  ctx.textAlign = 'left';
  for (const t of ys.ticks(4)) ctx.fillText(`${t}%`, box.x + box.w + 5, Math.round(ys(t)) + 4);
  ctx.restore();
  vmark(ctx, box, x, context, 'original context');
  const line = (colour, dash, f, yScale) => {
    ctx.save();
    ctx.strokeStyle = colour; ctx.fillStyle = colour; ctx.lineWidth = 2; ctx.setLineDash(dash);
    ctx.beginPath();
    points.forEach((p, i) => (i ? ctx.lineTo(x(p.length), yScale(f(p))) : ctx.moveTo(x(p.length), yScale(f(p)))));
    ctx.stroke();
    for (const p of points) ctx.fillRect(x(p.length) - 2.5, yScale(f(p)) - 2.5, 5, 5);
    ctx.restore();
  };
  if (points.length) {
    line(ent, [], (p) => p.entropy, ye);
    line(sink, [6, 3], (p) => 100 * p.sink, ys);
  }
  canvas.dataset.points = String(points.length);
}
