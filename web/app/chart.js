// Small line charts on canvas: axes, series, vertical markers.
import { cssVar } from './heatmap.js';

/**
 * @param ctx 2-D context already scaled to CSS px
 * @param box {x, y, w, h}
 * @param opts {x: [lo, hi], y: [lo, hi], xLog?, series: [{points: [[x, y]], colour, dash?, width?}], marks: [{x, label, colour}], xLabel, yLabel}
 */
export function drawChart(ctx, box, opts) {
  const { x: [x0, x1], y: [y0, y1] } = opts;
  const fx = opts.xLog ? (v) => Math.log(v / x0) / Math.log(x1 / x0) : (v) => (v - x0) / (x1 - x0);
  const fy = opts.yLog ? (v) => Math.log(v / y0) / Math.log(y1 / y0) : (v) => (v - y0) / (y1 - y0);
  const px = (v) => box.x + fx(v) * box.w;
  const py = (v) => box.y + box.h - Math.max(-0.05, Math.min(1.05, fy(v))) * box.h;
  // opts.colours: {muted, grid} given by callers that draw off the page (OffscreenCanvas, SVG export)
  const muted = opts.colours?.muted ?? cssVar('--muted', undefined, ctx.canvas);
  ctx.save();
  ctx.font = '10px system-ui, sans-serif';
  ctx.strokeStyle = opts.colours?.grid ?? cssVar('--grid', 'rgba(128,128,128,.35)', ctx.canvas);
  ctx.lineWidth = 1;
  ctx.strokeRect(box.x + 0.5, box.y + 0.5, box.w, box.h);
  for (const m of opts.marks ?? []) {
    if (m.x < x0 || m.x > x1) continue;
    ctx.strokeStyle = m.colour ?? muted;
    ctx.setLineDash(m.dash ?? [4, 3]);
    ctx.beginPath();
    ctx.moveTo(px(m.x) + 0.5, box.y);
    ctx.lineTo(px(m.x) + 0.5, box.y + box.h);
    ctx.stroke();
    ctx.setLineDash([]);
    if (m.label) {
      ctx.fillStyle = m.colour ?? muted;
      ctx.textAlign = px(m.x) > box.x + box.w - 50 ? 'right' : 'left';
      ctx.fillText(m.label, px(m.x) + (ctx.textAlign === 'left' ? 3 : -3), box.y + 10);
    }
  }
  for (const h of opts.hmarks ?? []) {
    if (h.y < y0 || h.y > y1) continue;
    ctx.strokeStyle = h.colour ?? muted;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(box.x, py(h.y) + 0.5);
    ctx.lineTo(box.x + box.w, py(h.y) + 0.5);
    ctx.stroke();
    ctx.setLineDash([]);
    if (h.label) {
      ctx.fillStyle = h.colour ?? muted;
      ctx.textAlign = 'right';
      ctx.fillText(h.label, box.x + box.w - 3, py(h.y) - 3);
    }
  }
  for (const s of opts.series) {
    if (!s.points.length) continue;
    ctx.strokeStyle = s.colour;
    ctx.lineWidth = s.width ?? 1.5;
    ctx.setLineDash(s.dash ?? []);
    ctx.beginPath();
    s.points.forEach(([a, b], i) => (i ? ctx.lineTo(px(a), py(b)) : ctx.moveTo(px(a), py(b))));
    ctx.stroke();
    if (s.dots) {
      ctx.fillStyle = s.colour;
      for (const [a, b] of s.points) ctx.fillRect(px(a) - 1.5, py(b) - 1.5, 3, 3);
    }
  }
  ctx.setLineDash([]);
  ctx.fillStyle = muted;
  ctx.textAlign = 'left';
  if (opts.yLabel) ctx.fillText(opts.yLabel, box.x + 3, box.y + box.h - 3);
  if (opts.xTicks) {
    for (const t of opts.xTicks) {
      if (t < x0 || t > x1) continue;
      ctx.textAlign = px(t) > box.x + box.w - 12 ? 'right' : px(t) < box.x + 12 ? 'left' : 'center';
      ctx.fillText(String(t), px(t), box.y + box.h + 11);
    }
  }
  ctx.restore();
  return { px, py };
}
