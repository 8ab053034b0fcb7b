// "Your model's RoPE": pick a shipped public config.json or paste one; pe.ropeFromConfig
// (HF's rules, the C++ core's frequencies) says per layer type what each rotary pair
// does. Three plots, drawn on canvas with d3-scale axes (so they export as PNG/SVG like
// the other views): each pair's wavelength against the original and extended
// context, coloured by regime; the attention-logit scale against position; and
// RoPE's long-distance decay of q·k (RoFormer §3.4.3's relative upper bound) with the
// trained and the scaled frequencies.
import { scaleLinear, scaleLog } from '../../vendor/d3.js';
import { cssVar, fitCanvas } from '../heatmap.js';
import { axes as sharedAxes } from '../chart.js';
import { SHIPPED_CONFIGS } from '../../configs/index.js';
import { loadShippedConfig } from '../../configs/load.js';

const REGIME_COLOURS = { kept: '--ok', interpolated: '--accent', blended: '--train', dropped: '--past' };
const REGIME_WORDS = {
  kept: 'kept (as trained)',
  interpolated: 'interpolated (÷ factor)',
  blended: 'blended (between)',
  dropped: 'dropped (frequency 0, no rotation)',
};
const fmt = (x) => (x >= 1e6 ? `${+(x / 1e6).toPrecision(3)}M` : x >= 1e3 ? `${+(x / 1e3).toPrecision(3)}k` : `${+x.toPrecision(3)}`);

// ---------- drawing helpers (d3 scales on a canvas) ----------

function frame(canvas, height) {
  const [w, h, ctx] = fitCanvas(canvas, height);
  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = cssVar('--bg', '#fff');
  ctx.fillRect(0, 0, w, h);
  return { w, h, ctx, box: { x: 58, y: 40, w: w - 72, h: h - 84 } };
}

// Axes from d3 scales (web/app/chart.js): ticks, tick labels, axis titles with units; log axes in decades.
const axes = (ctx, box, x, y, o) => sharedAxes(ctx, box, x, y, { rotateY: true, xFormat: o.logX ? fmt : undefined, yFormat: o.logY ? fmt : undefined, ...o });

function hline(ctx, box, y, value, label, colour) {
  const py = Math.round(y(value)) + 0.5;
  if (py < box.y || py > box.y + box.h) return;
  ctx.save();
  ctx.strokeStyle = colour;
  ctx.setLineDash([5, 3]);
  ctx.beginPath(); ctx.moveTo(box.x, py); ctx.lineTo(box.x + box.w, py); ctx.stroke();
  ctx.fillStyle = colour;
  ctx.font = '11px system-ui, sans-serif';
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
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = px > box.x + box.w - 90 ? 'right' : 'left';
  ctx.fillText(label, px + (ctx.textAlign === 'left' ? 4 : -4), box.y + 12 + 14 * row);
  ctx.restore();
}

// A legend row above the plot: [{label, colour, kind: 'dot'|'line'|'ring'|'dash'}]
function legend(ctx, w, items) {
  ctx.save();
  ctx.font = '11px system-ui, sans-serif';
  let x = 58, y = 11;
  for (const it of items) {
    const width = 28 + ctx.measureText(it.label).width;
    if (x > 58 && x + width > w) { x = 58; y += 14; } // wrap onto a second row
    if (y > 25) break;
    ctx.strokeStyle = ctx.fillStyle = it.colour;
    ctx.lineWidth = 2;
    if (it.kind === 'line' || it.kind === 'dash') {
      ctx.setLineDash(it.kind === 'dash' ? [5, 3] : []);
      ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 16, y); ctx.stroke();
      ctx.setLineDash([]);
    } else if (it.kind === 'ring') {
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.arc(x + 6, y, 3.5, 0, 2 * Math.PI); ctx.stroke();
    } else {
      ctx.beginPath(); ctx.arc(x + 6, y, 4, 0, 2 * Math.PI); ctx.fill();
    }
    ctx.fillStyle = cssVar('--fg', '#222');
    ctx.fillText(it.label, x + 20, y + 4);
    x += width;
  }
  ctx.restore();
}

// Empty axes with one line of text in the middle: a plot with nothing to draw (layers with no RoPE).
function emptyPlot(ctx, box, titles, message) {
  axes(ctx, box, scaleLinear([0, 1], [box.x, box.x + box.w]), scaleLinear([0, 1], [box.y + box.h, box.y]), titles);
  ctx.fillStyle = cssVar('--fg', '#222');
  ctx.font = '13px system-ui, sans-serif';
  ctx.fillText(message, box.x + 12, box.y + box.h / 2);
}

// ---------- the three plots ----------

export function drawWavelengths(canvas, lt, r) {
  const { w, ctx, box } = frame(canvas, 260);
  const ext = r.contextLength ?? r.seqLen;
  if (!lt.rope) {
    emptyPlot(ctx, box, { xTitle: 'rotation pair i', yTitle: 'wavelength' }, `${lt.name}: no RoPE in these ${lt.layers.length} layers (NoPE)`);
    return;
  }
  const finite = lt.pairs.flatMap((p) => [p.wavelength, p.baseWavelength]).filter(Number.isFinite);
  const hi = Math.max(...finite, ext) * 4, lo = Math.max(1, Math.min(...finite) / 2);
  const x = scaleLinear([-0.5, lt.pairs.length - 0.5], [box.x, box.x + box.w]);
  const y = scaleLog([lo, hi], [box.y + box.h, box.y]).clamp(true);
  axes(ctx, box, x, y, { xTitle: `rotation pair i (of ${lt.pairs.length}; ${lt.rotaryDim} of ${lt.headDim} head dims rotate)`,
    yTitle: 'wavelength 2π/θᵢ (tokens)', logY: true });
  hline(ctx, box, y, lt.originalContext, `original context ${fmt(lt.originalContext)}`, cssVar('--train', '#b7791f'));
  if (ext && ext !== lt.originalContext) hline(ctx, box, y, ext, `extended context ${fmt(ext)}`, cssVar('--past', '#c53030'));
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
  ctx.restore();
  legend(ctx, w, [{ label: 'as trained', colour: cssVar('--muted'), kind: 'ring' },
    ...Object.keys(REGIME_COLOURS).filter((k) => lt.counts[k]).map((k) => ({ label: `${REGIME_WORDS[k]}: ${lt.counts[k]}`, colour: cssVar(REGIME_COLOURS[k]) }))]);
}

const logSpace = (a, b, n) => Array.from({ length: n }, (_, i) => a * Math.pow(b / a, i / (n - 1)));

export function drawScales(canvas, r) {
  const { w, ctx, box } = frame(canvas, 220);
  const ext = r.contextLength ?? r.seqLen;
  const maxPos = Math.max(ext ?? 1, 16) * 4;
  const positions = logSpace(1, maxPos, 400).map(Math.floor);
  const series = r.layerTypes.map((lt, i) => ({ lt, values: Array.from(lt.logitScaleAt(positions)), colour: i ? cssVar('--loss', '#c2410c') : cssVar('--accent') }));
  const all = series.flatMap((s) => s.values);
  const y = scaleLinear([Math.min(0.9, ...all), Math.max(1.1, ...all) * 1.05], [box.y + box.h, box.y]).nice();
  const x = scaleLog([1, maxPos], [box.x, box.x + box.w]);
  axes(ctx, box, x, y, { xTitle: 'query position (tokens, log scale)', yTitle: 'logit scale (× 1/√d)', logX: true });
  vline(ctx, box, x, r.originalContext, `original ${fmt(r.originalContext)}`, cssVar('--train', '#b7791f'));
  if (ext && ext !== r.originalContext) vline(ctx, box, x, ext, `extended ${fmt(ext)}`, cssVar('--past', '#c53030'), 1);
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
  legend(ctx, w, series.map((s, k) => ({ label: `${s.lt.name} (${s.lt.layers.length} layers)${s.lt.queryScale ? ', queries scaled by position' : ''}`,
    colour: s.colour, kind: k ? 'dash' : 'line' })));
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
  const { w, ctx, box } = frame(canvas, 220);
  const ext = r.contextLength ?? r.seqLen;
  if (!lt.rope) {
    emptyPlot(ctx, box, { xTitle: 'relative distance', yTitle: 'q·k bound' }, 'NoPE layers: q·k does not depend on the distance');
    return null;
  }
  const top = Math.max(ext ?? 1, lt.originalContext ?? 1, 16);
  const dist = logSpace(1, top, 500);
  const base = decayBound(lt.pairs.map((p) => p.baseInvFreq), dist);
  const scaled = decayBound(lt.invFreq, dist);
  const x = scaleLog([1, top], [box.x, box.x + box.w]);
  const y = scaleLinear([0, Math.max(...base, ...scaled) * 1.05], [box.y + box.h, box.y]).nice();
  axes(ctx, box, x, y, { xTitle: 'relative distance Δ (tokens, log scale)', yTitle: 'q·k bound (RoFormer)', logX: true });
  vline(ctx, box, x, lt.originalContext, `original ${fmt(lt.originalContext)}`, cssVar('--train', '#b7791f'));
  if (ext && ext !== lt.originalContext) vline(ctx, box, x, ext, `extended ${fmt(ext)}`, cssVar('--past', '#c53030'), 1);
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
  line(base, cssVar('--muted'), lt.originalContext ?? top, []);
  line(scaled, cssVar('--accent'), top, [6, 2]);
  legend(ctx, w, [{ label: `as trained, up to the original ${fmt(lt.originalContext)}`, colour: cssVar('--muted'), kind: 'line' },
    { label: `${lt.ropeType} frequencies, up to ${fmt(top)}`, colour: cssVar('--accent'), kind: 'dash' }]);
  return { distances: dist, trained: base, scaled };
}

/** The "what to notice" line of a layer type: how many pairs never turned within the original context, and what the scaling does. */
export function ropeNotice(lt, r) {
  if (!lt.rope) return `What to notice: the ${lt.layers.length} ${lt.name} layers have no RoPE (NoPE): their attention sees no positions at all.`;
  const ctx0 = r.originalContext, ext = r.contextLength ?? r.seqLen;
  const slow = lt.pairs.filter((p) => p.baseWavelength > ctx0).length;
  const changed = lt.pairs.length - (lt.counts.kept ?? 0);
  return `What to notice: ${slow} of the ${lt.pairs.length} rotary pairs of the ${lt.name} layers turn less than once in the original ` +
    `${fmt(ctx0)} tokens` + (ext && ext !== ctx0 ? `; to reach ${fmt(ext)} the scaling changes ${changed} of them and keeps ${lt.counts.kept ?? 0}.` : '.');
}

// ---------- the section ----------

export function createYourRope(pe, section, state, { onChange = () => {} } = {}) {
  const $ = (s) => section.querySelector(s);
  const select = $('select.rope-model');
  const layerSelect = $('select.rope-layer-type');
  const text = $('textarea.config');
  const message = $('.config-error');
  const summary = $('.rope-summary');
  let result = null, decay = null, pasted = null, token = 0;
  let resultModel = null; // the config `result` was computed from (state.ropeModel changes first, while its config loads)

  select.replaceChildren(...SHIPPED_CONFIGS.map((c) => new Option(`${c.label} (${c.repo})`, c.id)), new Option('pasted config', 'pasted'));
  select.value = state.ropeModel;

  function fail(e) {
    result = null;
    message.textContent = `This config cannot be used: ${e.message}`;
    message.hidden = false;
  }

  function show(r) {
    result = r;
    if (!message.textContent.startsWith('The link')) message.hidden = true;
    layerSelect.replaceChildren(...r.layerTypes.map((lt, i) => new Option(`${lt.name} (${lt.layers.length} layers)`, String(i))));
    if (state.ropeLayerType >= r.layerTypes.length) state.ropeLayerType = 0;
    layerSelect.value = String(state.ropeLayerType);
    summary.replaceChildren(...r.layerTypes.map((lt) => {
      const li = document.createElement('li');
      li.textContent = lt.rope
        ? `${lt.name} (${lt.layers.length} layers): rope_type ${lt.ropeType}, θ = ${lt.theta}, rotary dim ${lt.rotaryDim} of head dim ${lt.headDim}` +
          ` — ${Object.entries(lt.counts).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(', ')}; cos/sin × ${+lt.cosSinScale.toFixed(4)}` +
          (lt.softmaxScale !== 1 ? `, softmax × ${+lt.softmaxScale.toFixed(4)}` : '') +
          (lt.queryScale ? `, queries × ${lt.queryScale.formula}` : '') +
          (lt.knownKeys?.length ? `; also: ${lt.knownKeys.map((k) => k.key).join(', ')} (${lt.knownKeys.map((k) => k.use).join('; ')})` : '')
        : `${lt.name} (${lt.layers.length} layers): no RoPE${lt.queryScale ? `; queries × ${lt.queryScale.formula}` : ''}`;
      return li;
    }), ...r.notes.map((n) => Object.assign(document.createElement('li'), { textContent: n })));
    draw();
  }

  function draw() {
    if (!result) return;
    const lt = result.layerTypes[state.ropeLayerType] ?? result.layerTypes[0];
    drawWavelengths($('canvas.wavelengths'), lt, result);
    const notice = $('.notice');
    if (notice) notice.textContent = ropeNotice(lt, result);
    drawScales($('canvas.scales'), result);
    decay = drawDecay($('canvas.decay'), lt, result);
  }

  function analyse(config, model) {
    try {
      show(pe.ropeFromConfig(config));
      resultModel = model;
      return true;
    } catch (e) {
      fail(e);
      return false;
    }
  }

  async function pick(id) {
    const mine = ++token;
    if (id === 'pasted') {
      if (pasted !== null) analyse(pasted, 'pasted');
      return;
    }
    try {
      const cfg = await loadShippedConfig(id);
      if (mine !== token) return;
      text.value = JSON.stringify(cfg, null, 1);
      analyse(cfg, id);
    } catch (e) {
      fail(e);
    }
  }

  select.addEventListener('change', () => {
    state.ropeModel = select.value;
    state.ropeLayerType = 0;
    onChange();
    pick(state.ropeModel);
  });
  layerSelect.addEventListener('change', () => {
    state.ropeLayerType = Math.max(0, Math.min(7, Number(layerSelect.value) || 0));
    onChange();
    draw();
  });
  $('form.paste').addEventListener('submit', (ev) => {
    ev.preventDefault();
    pasted = text.value;
    token++;
    if (analyse(pasted, 'pasted')) {
      state.ropeModel = 'pasted';
      select.value = 'pasted';
      state.ropeLayerType = Number(layerSelect.value) || 0;
      onChange();
    }
  });

  if (state.ropeModel === 'pasted') { // the pasted text is not in the URL
    state.ropeModel = SHIPPED_CONFIGS[0].id;
    select.value = state.ropeModel;
    message.textContent = 'The link was made from a pasted config, which links do not carry: paste it again.';
    message.hidden = false;
  }
  pick(state.ropeModel);
  return {
    draw,
    get result() { return result; },
    data: () => result && {
      model: resultModel, seqLen: result.seqLen, contextLength: result.contextLength, originalContext: result.originalContext,
      notes: result.notes,
      layerTypes: result.layerTypes.map((lt) => ({ name: lt.name, layers: lt.layers, rope: lt.rope, ropeType: lt.ropeType, theta: lt.theta,
        headDim: lt.headDim, rotaryDim: lt.rotaryDim, cosSinScale: lt.cosSinScale, softmaxScale: lt.softmaxScale, queryScale: lt.queryScale,
        counts: lt.counts, pairs: lt.pairs })),
      decay,
    },
  };
}
