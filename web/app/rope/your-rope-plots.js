// The three plots of "Your model's RoPE", drawn on canvas with d3-scale axes (so they export as
// PNG/SVG like the other views): each pair's wavelength against the original and extended context
// (and a layer type's sliding window), coloured by regime, with M-RoPE's time/height/width pairs;
// the attention-logit scale against position; RoPE's long-distance decay of q·k (RoFormer §3.4.3's
// relative upper bound) with the trained and the scaled frequencies. Every chart takes the model's
// one original and one extended context, so they agree.
import { scaleLinear, scaleLog } from '../../vendor/d3.js';
import { cssVar, fitCanvas } from '../shared/heatmap.js';
import { axes as sharedAxes } from '../shared/chart.js';
import { count, decade } from './rope-words.js';

export const REGIME_COLOURS = { kept: '--ok', interpolated: '--accent', blended: '--train', dropped: '--past' };
export const REGIME_WORDS = {
  kept: 'kept (as trained)',
  interpolated: 'interpolated (÷ factor)',
  blended: 'blended (between)',
  dropped: 'dropped (frequency 0, no rotation)',
};
export const AXIS_COLOURS = { t: '#7c3aed', h: '#0e7490', w: '#db2777' };
export const AXIS_WORDS = { t: 'time', h: 'height', w: 'width' };
const FONT = '11px system-ui, sans-serif';
const ROW = 14;

// Legend rows above the plot: items wrap onto as many rows as the width needs (none is dropped at 390 px).
function legendLayout(ctx, w, items) {
  ctx.save();
  ctx.font = FONT;
  let x = 58, row = 0;
  const placed = items.map((it) => {
    const width = 28 + ctx.measureText(it.label).width;
    if (x > 58 && x + width > w - 4) { x = 58; row++; }
    const at = { ...it, x, row };
    x += width;
    return at;
  });
  ctx.restore();
  return { placed, rows: items.length ? row + 1 : 0 };
}

function drawLegend(ctx, placed) {
  ctx.save();
  ctx.font = FONT;
  for (const it of placed) {
    const { x } = it, y = 11 + it.row * ROW;
    ctx.strokeStyle = ctx.fillStyle = it.colour;
    ctx.lineWidth = 2;
    if (it.kind === 'line' || it.kind === 'dash') {
      ctx.setLineDash(it.kind === 'dash' ? [5, 3] : []);
      ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 16, y); ctx.stroke();
      ctx.setLineDash([]);
    } else if (it.kind === 'ring') {
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.arc(x + 6, y, 3.5, 0, 2 * Math.PI); ctx.stroke();
    } else if (it.kind === 'square') {
      ctx.fillRect(x + 2, y - 4, 8, 8);
    } else {
      ctx.beginPath(); ctx.arc(x + 6, y, 4, 0, 2 * Math.PI); ctx.fill();
    }
    ctx.fillStyle = cssVar('--fg', '#222');
    ctx.fillText(it.label, x + 20, y + 4);
  }
  ctx.restore();
}

// A cleared canvas with room for the legend: the plot box starts below its rows.
function frame(canvas, height, legendItems = []) {
  const probe = fitCanvas(canvas, height)[2];
  const { placed, rows } = legendLayout(probe, canvas.clientWidth || canvas.parentElement.clientWidth, legendItems);
  const extra = Math.max(0, rows - 2) * ROW;
  canvas.style.height = extra ? `${height + extra}px` : ''; // the stylesheet's height, plus the rows the legend needs
  const [w, h, ctx] = fitCanvas(canvas, height + extra);
  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = cssVar('--bg', '#fff');
  ctx.fillRect(0, 0, w, h);
  drawLegend(ctx, placed);
  const top = 12 + Math.max(2, rows) * ROW;
  return { w, h, ctx, box: { x: 58, y: top, w: w - 72, h: h - top - 44 } };
}

// Axes from d3 scales (web/app/shared/chart.js): ticks, tick labels, axis titles with units; log axes in decades.
const axes = (ctx, box, x, y, o) => sharedAxes(ctx, box, x, y, { rotateY: true, xFormat: o.logX ? decade : undefined, yFormat: o.logY ? decade : undefined, ...o });

function hline(ctx, box, y, value, label, colour) {
  const py = Math.round(y(value)) + 0.5;
  if (py < box.y || py > box.y + box.h) return;
  ctx.save();
  ctx.strokeStyle = colour;
  ctx.setLineDash([5, 3]);
  ctx.beginPath(); ctx.moveTo(box.x, py); ctx.lineTo(box.x + box.w, py); ctx.stroke();
  ctx.fillStyle = colour;
  ctx.font = FONT;
  ctx.textAlign = 'left';
  ctx.fillText(label, box.x + 4, py - 4);
  ctx.restore();
}

function vline(ctx, box, x, value, label, colour, row = 0) {
  const px = Math.round(x(value)) + 0.5;
  if (px < box.x || px > box.x + box.w + 1) return;
  ctx.save();
  ctx.strokeStyle = colour;
  ctx.setLineDash([5, 3]);
  ctx.beginPath(); ctx.moveTo(px, box.y); ctx.lineTo(px, box.y + box.h); ctx.stroke();
  ctx.fillStyle = colour;
  ctx.font = FONT;
  ctx.textAlign = px > box.x + box.w - 90 ? 'right' : 'left';
  ctx.fillText(label, px + (ctx.textAlign === 'left' ? 4 : -4), box.y + 12 + ROW * row);
  ctx.restore();
}

// Empty axes with one line of text in the middle: a plot with nothing to draw.
function emptyPlot(ctx, box, titles, message) {
  axes(ctx, box, scaleLinear([0, 1], [box.x, box.x + box.w]), scaleLinear([0, 1], [box.y + box.h, box.y]), titles);
  ctx.fillStyle = cssVar('--fg', '#222');
  ctx.font = '13px system-ui, sans-serif';
  ctx.fillText(message, box.x + 12, box.y + box.h / 2);
}

const contextLabel = (word, c) => `${word} ${count(c.value)}${c.inferred ? ' (inferred)' : ''}`;
const colours = () => ({ original: cssVar('--train', '#b7791f'), extended: cssVar('--past', '#c53030'), window: cssVar('--muted', '#666') });

/** Blank plots with a message (no model: after an error). */
export function drawNothing(canvases, message) {
  for (const [canvas, height] of canvases) {
    const { ctx, box } = frame(canvas, height);
    emptyPlot(ctx, box, { xTitle: '', yTitle: '' }, message);
  }
}

export function drawWavelengths(canvas, lt, r) {
  const c = colours();
  const { original, extended } = r.contexts;
  if (!lt.rope) {
    const { ctx, box } = frame(canvas, 260);
    emptyPlot(ctx, box, { xTitle: 'rotation pair i', yTitle: 'wavelength' }, `${lt.name}: no RoPE in these ${lt.layers.length} layers (NoPE)`);
    return;
  }
  const axisCounts = lt.mrope ? Object.fromEntries(['t', 'h', 'w'].map((a) => [a, lt.mrope.axes.filter((x) => x === a).length])) : null;
  const items = [{ label: 'as trained', colour: cssVar('--muted'), kind: 'ring' },
    ...Object.keys(REGIME_COLOURS).filter((k) => lt.counts[k]).map((k) => ({ label: `${REGIME_WORDS[k]}: ${lt.counts[k]}`, colour: cssVar(REGIME_COLOURS[k]) })),
    ...(axisCounts ? ['t', 'h', 'w'].map((a) => ({ label: `${AXIS_WORDS[a]}: ${axisCounts[a]} pairs`, colour: AXIS_COLOURS[a], kind: 'square' })) : [])];
  const { ctx, box } = frame(canvas, 260, items);
  const ext = extended?.value;
  const finite = lt.pairs.flatMap((p) => [p.wavelength, p.baseWavelength]).filter(Number.isFinite);
  const hi = Math.max(...finite, ext ?? 1) * 4, lo = Math.max(1, Math.min(...finite, lt.window ?? Infinity) / 2);
  const x = scaleLinear([-0.5, lt.pairs.length - 0.5], [box.x, box.x + box.w]);
  const y = scaleLog([lo, hi], [box.y + box.h, box.y]).clamp(true);
  const dims = lt.slice === 'trailing' ? `the last ${lt.rotaryDim} of ${lt.headDim} head dims rotate` : `${lt.rotaryDim} of ${lt.headDim} head dims rotate`;
  axes(ctx, box, x, y, { xTitle: `rotation pair i (of ${lt.pairs.length}; ${dims}, ${lt.layout})`, yTitle: 'wavelength 2π/θᵢ (tokens)', logY: true });
  if (original) hline(ctx, box, y, original.value, contextLabel('original context', original), c.original);
  if (ext && ext !== original?.value) hline(ctx, box, y, ext, contextLabel('extended context', extended), c.extended);
  if (lt.window) hline(ctx, box, y, lt.window, `sliding window ${count(lt.window)}`, c.window);
  const r0 = Math.max(1.5, Math.min(4, box.w / lt.pairs.length / 2.5));
  ctx.save();
  for (const p of lt.pairs) {
    const px = x(p.index);
    ctx.strokeStyle = cssVar('--muted');
    ctx.lineWidth = 1;
    if (Number.isFinite(p.baseWavelength)) { ctx.beginPath(); ctx.arc(px, y(p.baseWavelength), r0 + 1, 0, 2 * Math.PI); ctx.stroke(); }
    ctx.fillStyle = cssVar(REGIME_COLOURS[p.regime]);
    const py = Number.isFinite(p.wavelength) ? y(p.wavelength) : box.y + 3;
    ctx.beginPath(); ctx.arc(px, py, r0, 0, 2 * Math.PI); ctx.fill();
  }
  if (lt.mrope) { // a strip along the bottom of the plot: which position id turns each pair
    const step = box.w / lt.pairs.length;
    lt.mrope.axes.forEach((a, i) => {
      ctx.fillStyle = AXIS_COLOURS[a];
      ctx.fillRect(box.x + i * step + 0.5, box.y + box.h - 7, Math.max(1, step - 1), 6);
    });
  }
  ctx.restore();
}

const logSpace = (a, b, n) => Array.from({ length: n }, (_, i) => a * Math.pow(b / a, i / (n - 1)));

export function drawScales(canvas, r) {
  const series = r.layerTypes.map((lt, i) => ({ lt, colour: i ? cssVar('--loss', '#c2410c') : cssVar('--accent') }));
  const items = series.map((s, k) => ({ label: `${s.lt.name} (${s.lt.layers.length} layers)${s.lt.queryScale ? ', queries scaled by position' : ''}`,
    colour: s.colour, kind: k ? 'dash' : 'line' }));
  const { ctx, box } = frame(canvas, 220, items);
  const c = colours();
  const { original, extended } = r.contexts;
  const ext = extended?.value;
  const maxPos = Math.max(ext ?? 1, 16) * 4;
  const positions = logSpace(1, maxPos, 400).map(Math.floor);
  for (const s of series) s.values = Array.from(s.lt.logitScaleAt(positions));
  const all = series.flatMap((s) => s.values);
  const y = scaleLinear([Math.min(0.9, ...all), Math.max(1.1, ...all) * 1.05], [box.y + box.h, box.y]).nice();
  const x = scaleLog([1, maxPos], [box.x, box.x + box.w]);
  axes(ctx, box, x, y, { xTitle: 'query position (tokens, log scale)', yTitle: 'logit scale (× 1/√d)', logX: true });
  if (original) vline(ctx, box, x, original.value, contextLabel('original', original), c.original);
  if (ext && ext !== original?.value) vline(ctx, box, x, ext, contextLabel('extended', extended), c.extended, 1);
  series.forEach((s, k) => {
    ctx.save();
    ctx.strokeStyle = s.colour;
    ctx.lineWidth = 2;
    ctx.setLineDash(k ? [6, 3] : []);
    ctx.beginPath();
    positions.forEach((p, i) => (i ? ctx.lineTo(x(p), y(s.values[i])) : ctx.moveTo(x(p), y(s.values[i]))));
    ctx.stroke();
    ctx.restore();
  });
}

/** RoFormer §3.4.3: (1/(d/2)) Σ_j |Σ_{k<j} e^{iΔθ_k}|, the bound on q·k at relative distance Δ. */
export function decayBound(invFreq, distances) {
  const f = Array.from(invFreq).filter((t) => t > 0);
  return distances.map((d) => {
    let re = 0, im = 0, sum = 0;
    for (const t of f) {
      re += Math.cos(d * t);
      im += Math.sin(d * t);
      sum += Math.hypot(re, im);
    }
    return f.length ? sum / f.length : 0;
  });
}

export function drawDecay(canvas, lt, r) {
  if (!lt.rope) {
    const { ctx, box } = frame(canvas, 220);
    emptyPlot(ctx, box, { xTitle: 'relative distance', yTitle: 'q·k bound' }, 'NoPE layers: q·k does not depend on the distance');
    return null;
  }
  const c = colours();
  const { original, extended } = r.contexts;
  const ext = extended?.value;
  const top = Math.max(ext ?? 1, original?.value ?? 1, 16);
  // sliding-window layers never see a distance beyond their window: their lines stop there
  const trainedUntil = Math.min(original?.value ?? top, lt.window ?? Infinity), scaledUntil = Math.min(top, lt.window ?? Infinity);
  const items = [{ label: `as trained, up to the ${lt.window ? 'window' : 'original'} ${count(trainedUntil)}`, colour: cssVar('--muted'), kind: 'line' },
    { label: `${lt.ropeType} frequencies, up to ${lt.window ? 'the window ' : ''}${count(scaledUntil)}`, colour: cssVar('--accent'), kind: 'dash' }];
  const { ctx, box } = frame(canvas, 220, items);
  const dist = logSpace(1, top, 500);
  const base = decayBound(lt.pairs.map((p) => p.baseInvFreq), dist);
  const scaled = decayBound(lt.invFreq, dist);
  const x = scaleLog([1, top], [box.x, box.x + box.w]);
  const y = scaleLinear([0, Math.max(...base, ...scaled) * 1.05], [box.y + box.h, box.y]).nice();
  axes(ctx, box, x, y, { xTitle: 'relative distance Δ (tokens, log scale)', yTitle: 'q·k bound (RoFormer)', logX: true });
  if (original) vline(ctx, box, x, original.value, contextLabel('original', original), c.original);
  if (ext && ext !== original?.value) vline(ctx, box, x, ext, contextLabel('extended', extended), c.extended, 1);
  if (lt.window) vline(ctx, box, x, lt.window, `window ${count(lt.window)}`, c.window, 2);
  const line = (vals, colour, until, dash) => {
    ctx.save();
    ctx.strokeStyle = colour;
    ctx.lineWidth = 1.6;
    ctx.setLineDash(dash);
    ctx.beginPath();
    let started = false;
    dist.forEach((d, i) => {
      if (d > until) return;
      started ? ctx.lineTo(x(d), y(vals[i])) : ctx.moveTo(x(d), y(vals[i]));
      started = true;
    });
    ctx.stroke();
    ctx.restore();
  };
  line(base, cssVar('--muted'), trainedUntil, []);
  line(scaled, cssVar('--accent'), scaledUntil, [6, 2]);
  return { distances: dist, trained: base, scaled };
}

/** The "what to notice" line of a layer type, with the model's contexts and, for sliding layers, their window. */
export function ropeNotice(lt, r) {
  if (!lt.rope) return `What to notice: the ${lt.layers.length} ${lt.name} layers have no RoPE (NoPE): their attention sees no positions at all.`;
  const { original, extended } = r.contexts;
  const changed = lt.pairs.length - (lt.counts.kept ?? 0);
  const scaling = `the scaling changes ${changed} of them and keeps ${lt.counts.kept ?? 0}`;
  if (lt.window) {
    const slowInWindow = lt.pairs.filter((p) => p.baseWavelength > lt.window).length;
    return `What to notice: the ${lt.layers.length} ${lt.name} layers attend only within a ${count(lt.window)}-token sliding window, so no query–key distance they see ` +
      `exceeds ${count(lt.window)}, whatever the context: ${slowInWindow} of their ${lt.pairs.length} rotary pairs turn less than once in the window, and ${scaling}.`;
  }
  const ctx0 = original?.value;
  const slow = lt.pairs.filter((p) => p.baseWavelength > ctx0).length;
  const ext = extended?.value;
  return `What to notice: ${slow} of the ${lt.pairs.length} rotary pairs of the ${lt.name} layers turn less than once in the original ` +
    `${count(ctx0)} tokens${original?.inferred ? ' (inferred)' : ''}` +
    (ext && ext !== ctx0 ? `; to reach ${count(ext)}${extended.inferred ? ' (inferred)' : ''} ${scaling}.` : '.');
}
