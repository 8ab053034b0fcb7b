// Small line charts on canvas: axes, series, vertical markers.
import { cssVar, drawHeatmap, fitCanvas } from './heatmap.js';
import { scaleLinear } from '../../vendor/d3.js';
import { lengthAxis } from './length-axis.js';

/**
 * @param ctx 2-D context already scaled to CSS px
 * @param box {x, y, w, h}
 * @param opts {x: [lo, hi], y: [lo, hi], xLog?, series: [{points: [[x, y]], colour, dash?, width?, dots?, hollow?: [bool]}], marks: [{x, label, colour}], xLabel, yLabel}
 */
export function drawChart(ctx, box, opts) {
  const { x: [x0, x1], y: [y0, y1] } = opts;
  const fx = opts.xLog ? lengthAxis(x0, x1) : (v) => (v - x0) / (x1 - x0);
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
  // Labels never overlap (a narrow chart, a phone): a mark's label takes the first line down where it meets none drawn,
  // a tick label is left out where it would meet one (the first and the last ticks go first).
  const placed = [];
  const free = (l, r, y) => placed.every((p) => p.y !== y || r + 3 <= p.l || l >= p.r + 3);
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
      const wl = ctx.measureText(m.label).width, right = px(m.x) > box.x + box.w - 50;
      const l = right ? px(m.x) - 3 - wl : px(m.x) + 3;
      let y = box.y + 10;
      while (!free(l, l + wl, y) && y < box.y + box.h - 11) y += 11;
      placed.push({ l, r: l + wl, y });
      ctx.textAlign = 'left';
      ctx.fillText(m.label, l, y);
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
      // (s.hollow[i]: point i is drawn as a ring, e.g. a live evaluation on fewer sequences than the measured ones)
      s.points.forEach(([a, b], i) => {
        if (!s.hollow?.[i]) return ctx.fillRect(px(a) - 1.5, py(b) - 1.5, 3, 3);
        ctx.setLineDash([]);
        ctx.lineWidth = 1;
        ctx.beginPath();
        ctx.arc(px(a), py(b), 2.5, 0, 2 * Math.PI);
        ctx.stroke();
      });
    }
  }
  ctx.setLineDash([]);
  ctx.fillStyle = muted;
  ctx.textAlign = 'left';
  // the y title: above the box (yLabelTop: clear of the curves), else in its bottom-left corner
  // (yLabel: a title, or titles from the longest to the shortest: the first that fits the chart's width)
  const yLabel = [].concat(opts.yLabel ?? []).find((t, i, all) => i === all.length - 1 || ctx.measureText(t).width <= box.w + 4);
  if (yLabel) ctx.fillText(yLabel, opts.yLabelTop ? box.x : box.x + 3, opts.yLabelTop ? box.y - 5 : box.y + box.h - 3);
  if (opts.xTicks) {
    const ticks = opts.xTicks.filter((t) => t >= x0 && t <= x1);
    const first = Math.min(...ticks), last = Math.max(...ticks);
    for (const t of [...ticks].sort((a, b) => (b === first || b === last) - (a === first || a === last))) {
      const text = fmtTick(t), wt = ctx.measureText(text).width, y = box.y + box.h + 11;
      const align = px(t) > box.x + box.w - 12 ? 'right' : px(t) < box.x + 12 ? 'left' : 'center';
      const l = align === 'right' ? px(t) - wt : align === 'left' ? px(t) : px(t) - wt / 2;
      if (!free(l, l + wt, y)) continue;
      placed.push({ l, r: l + wt, y });
      ctx.textAlign = align;
      ctx.fillText(text, px(t), y);
    }
  }
  // y ticks: labels left of the box, short tick marks into it
  for (const t of opts.yTicks ?? []) {
    if (t < y0 || t > y1) continue;
    const y = Math.round(py(t)) + 0.5;
    ctx.strokeStyle = muted;
    ctx.beginPath();
    ctx.moveTo(box.x - 3, y);
    ctx.lineTo(box.x + 2, y);
    ctx.stroke();
    ctx.textAlign = 'right';
    ctx.fillText(fmtTick(t), box.x - 4, y + 3);
  }
  if (opts.xLabel) {
    ctx.textAlign = 'right';
    ctx.fillText(opts.xLabel, box.x + box.w, box.y + box.h + 22);
  }
  ctx.restore();
  note(ctx, 'xAxis', opts.xLabel ?? '');
  note(ctx, 'yAxis', yLabel ?? '');
  note(ctx, 'labels', JSON.stringify(placed.map((p) => [Math.round(p.l), Math.round(p.r), p.y])));
  return { px, py };
}

// ---------- axes and colour legends from d3 scales (shared by every figure) ----------
// Everything here draws with the canvas subset web/app/shared/svg-context.js writes (rectangles, straight lines, text;
// no rotation unless `rotateY`), so the sweep's SVG/GIF/WebM exports carry the same axes and legends. Each call
// records what it drew on the canvas element (data-x-axis, data-y-axis, data-legend) for assistive text and tests.

const note = (ctx, key, value) => {
  const el = ctx.canvas;
  if (el && el.dataset) el.dataset[key] = value;
};

/** A tick formatter for positions and sizes: 1.5k, 2M, 0.25. */
export const fmtTick = (x) => (Math.abs(x) >= 1e6 ? `${+(x / 1e6).toPrecision(3)}M` : Math.abs(x) >= 1e4 ? `${+(x / 1e3).toPrecision(3)}k` : `${+x.toPrecision(3)}`);

/**
 * Ticks, tick labels and axis titles (with units) for d3 scales `x` and `y` already ranged onto `box`.
 * opts: {xTitle, yTitle, xTicks (count or array), yTicks, logX, logY, grid (true: grid lines), rotateY (y title
 * turned 90°; else written above the axis), colours: {muted, grid, fg}, font (px), xFormat, yFormat}.
 */
export function axes(ctx, box, x, y, opts) {
  const { xTitle, yTitle, xTicks = 6, yTicks = 5, logX = false, logY = false, rotateY = false, grid = true, font = 11 } = opts;
  const muted = opts.colours?.muted ?? cssVar('--muted', undefined, ctx.canvas);
  const gridColour = opts.colours?.grid ?? cssVar('--grid', 'rgba(128,128,128,.3)', ctx.canvas);
  const fg = opts.colours?.fg ?? cssVar('--fg', '#222', ctx.canvas);
  const decades = (s) => s.ticks().filter((t) => Math.abs(Math.log10(t) % 1) < 1e-9);
  const tickList = (s, n, log) => (Array.isArray(n) ? n : log ? decades(s) : s.ticks(n));
  const fx = opts.xFormat ?? (logX || Array.isArray(xTicks) ? fmtTick : x.tickFormat?.(xTicks) ?? fmtTick);
  const fy = opts.yFormat ?? (logY || Array.isArray(yTicks) ? fmtTick : y.tickFormat?.(yTicks) ?? fmtTick);
  const seg = (x0, y0, x1, y1) => {
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
  };
  ctx.save();
  ctx.font = `${font}px system-ui, sans-serif`;
  ctx.lineWidth = 1;
  ctx.strokeStyle = gridColour;
  ctx.strokeRect(box.x + 0.5, box.y + 0.5, box.w, box.h);
  ctx.fillStyle = muted;
  ctx.textAlign = 'center';
  for (const t of tickList(x, xTicks, logX)) {
    const px = Math.round(x(t)) + 0.5;
    if (px < box.x - 1 || px > box.x + box.w + 1) continue;
    seg(px, grid ? box.y : box.y + box.h, px, box.y + box.h + 3);
    ctx.fillText(fx(t), px, box.y + box.h + 3 + font);
  }
  ctx.textAlign = 'right';
  for (const t of tickList(y, yTicks, logY)) {
    const py = Math.round(y(t)) + 0.5;
    if (py < box.y - 1 || py > box.y + box.h + 1) continue;
    seg(box.x - 3, py, grid ? box.x + box.w : box.x, py);
    ctx.fillText(fy(t), box.x - 5, py + font / 3);
  }
  ctx.fillStyle = fg;
  if (xTitle) {
    ctx.textAlign = 'center';
    ctx.fillText(xTitle, box.x + box.w / 2, box.y + box.h + 6 + 2 * font);
  }
  if (yTitle) {
    if (rotateY) {
      ctx.save();
      ctx.translate(font + 2, box.y + box.h / 2);
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'center';
      ctx.fillText(yTitle, 0, 0);
      ctx.restore();
    } else {
      ctx.textAlign = 'left';
      ctx.fillText(yTitle, Math.max(0, box.x - 30), box.y - 4);
    }
  }
  ctx.restore();
  note(ctx, 'xAxis', xTitle ?? '');
  note(ctx, 'yAxis', yTitle ?? '');
}

// The colours of a bar of `steps` steps, bottom to top (the middle of each step), kept per interpolator:
// every row of the explorer redraws its legend whenever the length changes.
const bars = new WeakMap();
function barColours(interpolate, steps) {
  if (!bars.has(interpolate)) bars.set(interpolate, new Map());
  const cache = bars.get(interpolate);
  if (!cache.has(steps)) cache.set(steps, Array.from({ length: steps }, (_, i) => interpolate((i + 0.5) / steps)));
  return cache.get(steps);
}

/**
 * A vertical colour bar in `box` for `interpolate` over `domain`, with ticks on its right and `title` above.
 * `sqrt`: the colours are spread by √value (as the attention maps are), so the ticks are placed at √t.
 */
export function colourLegend(ctx, box, { interpolate, domain: [lo, hi], title, ticks = 4, sqrt = false, colours = {}, font = 10 }) {
  const muted = colours.muted ?? cssVar('--muted', undefined, ctx.canvas);
  const fg = colours.fg ?? cssVar('--fg', '#222', ctx.canvas);
  const f = (v) => (sqrt ? Math.sqrt(Math.max(0, (v - lo) / (hi - lo))) : (v - lo) / (hi - lo));
  const yOf = (v) => box.y + box.h - f(v) * box.h;
  const steps = Math.max(8, Math.min(64, Math.round(box.h / 2)));
  const bar = barColours(interpolate, steps);
  ctx.save();
  for (let i = 0; i < steps; i++) {
    ctx.fillStyle = bar[i];
    ctx.fillRect(box.x, box.y + box.h - ((i + 1) / steps) * box.h, box.w, box.h / steps + 0.5);
  }
  const list = Array.isArray(ticks) ? ticks : sqrt ? [0, 0.05, 0.25, 0.5, 1].map((t) => lo + t * (hi - lo)) : Array.from({ length: ticks + 1 }, (_, i) => lo + (i / ticks) * (hi - lo));
  ctx.font = `${font}px system-ui, sans-serif`;
  ctx.fillStyle = muted;
  ctx.strokeStyle = muted;
  ctx.textAlign = 'left';
  ctx.lineWidth = 1;
  for (const t of list) {
    const py = Math.round(yOf(t)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(box.x + box.w, py);
    ctx.lineTo(box.x + box.w + 3, py);
    ctx.stroke();
    ctx.fillText(fmtTick(t), box.x + box.w + 4, py + font / 3);
  }
  if (title) {
    ctx.fillStyle = fg;
    ctx.textAlign = 'left';
    ctx.fillText(title, box.x - 2, box.y - 4);
  }
  ctx.restore();
  note(ctx, 'legend', `${title ?? ''} ${fmtTick(lo)}–${fmtTick(hi)}`.trim());
}

/**
 * A heatmap of a row-major rows x cols matrix with axes and a colour legend, on `canvas` (sized to its CSS box,
 * `height` CSS px tall). opts: {interpolate, domain, xTitle, yTitle, legendTitle, xLabels?, yLabels? (a label per
 * column / row; else the index), compact (small multiples: smaller margins and fonts)}. Returns the plot box.
 */
export function heatmapFigure(canvas, values, rows, cols, opts) {
  const { interpolate, domain, compact = false } = opts;
  const cells = document.createElement('canvas');
  drawHeatmap(cells, values, rows, cols, { interpolate, domain });
  const [w, h, ctx] = fitCanvas(canvas, opts.height);
  ctx.clearRect(0, 0, w, h);
  const font = compact ? 9 : 11;
  const box = compact ? { x: 24, y: 14, w: w - 24 - 34, h: h - 14 - 30 } : { x: 44, y: 20, w: w - 44 - 64, h: h - 20 - 40 };
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(cells, box.x, box.y, box.w, box.h);
  const x = scaleLinear([-0.5, cols - 0.5], [box.x, box.x + box.w]), y = scaleLinear([-0.5, rows - 0.5], [box.y, box.y + box.h]);
  const pick = (n, px) => scaleLinear([0, n - 1], [0, 1]).ticks(Math.max(2, Math.floor(px / (compact ? 30 : 45)))).filter(Number.isInteger);
  const label = (list) => (list ? (t) => fmtTick(list[t]) : fmtTick);
  // labelled cells: every k-th label, k as small as keeps them apart
  const every = (list, px, room) => list.map((_, i) => i).filter((i) => i % Math.ceil((list.length * room) / Math.max(1, px)) === 0);
  axes(ctx, box, x, y, { xTitle: opts.xTitle, yTitle: opts.yTitle, xTicks: opts.xLabels ? every(opts.xLabels, box.w, 4 + font * 2.2) : pick(cols, box.w),
    yTicks: opts.yLabels ? every(opts.yLabels, box.h, font + 4) : pick(rows, box.h), grid: false, font,
    xFormat: label(opts.xLabels), yFormat: label(opts.yLabels) });
  colourLegend(ctx, { x: box.x + box.w + 8, y: box.y + 10, w: compact ? 6 : 9, h: box.h - 10 }, { interpolate, domain, title: opts.legendTitle, font: compact ? 8 : 10,
    ticks: compact ? 2 : 4 });
  return box;
}
