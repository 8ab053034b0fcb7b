// The main view: one row per encoding with the attention maps of the chosen
// layer (one head, or all heads as small multiples) at the current length, a
// position-status strip under each map (trained / never trained / past the
// learned table), the training length marked, and accuracy and loss against
// length drawn up to the current length. Draws only what changed.
import { NAMES, BLURBS } from './meta.js';
import { cssVar, fitCanvas } from './heatmap.js';
import { drawChart } from './chart.js';

const MAP_H = 150; // CSS px of the maps canvas

/** Attention maps of one result (one bitmap per head) with training-length lines and a position-status strip. */
export function drawMapsCanvas(canvas, r, s, height = MAP_H) {
  // narrow screens: no taller than the maps need
  const count = r?.bitmaps.length ?? 1, cssW = canvas.clientWidth || 300;
  height = Math.round(Math.min(height, (cssW - 6 * (count - 1)) / count + 22));
  if (canvas.style.height !== `${height}px`) canvas.style.height = `${height}px`;
  const [w, h, ctx] = fitCanvas(canvas, height);
  ctx.clearRect(0, 0, w, h);
  if (!r) {
    ctx.fillStyle = cssVar('--muted', undefined, canvas);
    ctx.font = '12px system-ui, sans-serif';
    ctx.fillText('computing…', 8, 20);
    return;
  }
  paintMaps(ctx, w, h, r, s, mapColours(canvas));
}

/** The theme colours paintMaps needs, as CSS custom properties seen by `el`. */
export const mapColours = (el) => ({
  masked: cssVar('--masked', '#8884', el), train: cssVar('--train', '#e0a000', el), muted: cssVar('--muted', undefined, el),
  status: [cssVar('--ok', '#3a9d5d', el), cssVar('--untrained', '#e08a00', el), cssVar('--past', '#d0342c', el)],
});

/**
 * One result's maps in a w x h box at the context's origin, with the colours passed in (no style lookups),
 * so the animation export (web/app/animate-export.js, OffscreenCanvas or SVG) draws exactly what the page draws.
 */
export function paintMaps(ctx, w, h, r, s, { masked, train: trainColour, muted, status: colours }) {
  const n = r.bitmaps.length, gap = 6, strip = 6, label = 12;
  const size = Math.max(16, Math.min(h - strip - label - 2, (w - gap * (n - 1)) / n));
  const T = r.length, train = s.trainLength;
  ctx.imageSmoothingEnabled = false;
  ctx.font = '10px system-ui, sans-serif';
  let labelsEnd = 0;
  for (let k = 0; k < n; k++) {
    const x = k * (size + gap), y = label;
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
    ctx.fillStyle = muted;
    if (n < 4 || k === 0 || size > 60) {
      const text = n > 1 ? `H${r.heads[k] + 1}` : `L${s.layer + 1} H${r.heads[k] + 1}`;
      ctx.fillText(text, x, 9);
      labelsEnd = x + ctx.measureText(text).width;
    }
  }
  // the length and accuracy, right-aligned above the maps where they fit beside the head labels
  ctx.fillStyle = muted;
  const text = r.length !== s.length ? `T=${r.length} (computing ${s.length}…)` : `T=${r.length} · accuracy ${r.accuracy.toFixed(2)}`;
  const right = Math.min(w, n * (size + gap) - gap);
  if (right - ctx.measureText(text).width > labelsEnd + 8) {
    ctx.textAlign = 'right';
    ctx.fillText(text, right, 9);
    ctx.textAlign = 'left';
  }
}

/**
 * drawChart options for a row's accuracy (solid) and loss/5 (dashed) against length, results up to s.length,
 * x from lo to hi (log). `colours`: {accent, loss, train, fg, and optionally muted, grid}.
 */
export function curveOptions(shown, s, [lo, hi], colours) {
  const lossMax = 5;
  return {
    x: [lo, hi], y: [0, 1], xLog: true, colours,
    series: [
      { points: shown.map((r) => [r.length, r.accuracy]), colour: colours.accent, width: 2, dots: true },
      { points: shown.map((r) => [r.length, Math.min(r.loss, lossMax) / lossMax]), colour: colours.loss, dash: [4, 3] },
    ],
    marks: [
      { x: s.trainLength, label: 'train', colour: colours.train },
      ...(s.length !== s.trainLength ? [{ x: s.length, label: `T=${s.length}`, colour: colours.fg, dash: [1, 2] }] : []),
    ],
    xTicks: [...new Set([s.trainLength, 4 * s.trainLength, 8 * s.trainLength, hi])].filter((x) => x <= hi),
    yLabel: 'accuracy — · loss/5 - -',
  };
}

export function createSweepView(container, client) {
  const rows = new Map();

  function build(encodings) {
    container.replaceChildren();
    rows.clear();
    for (const enc of encodings) {
      const row = document.createElement('div');
      row.className = 'sweep-row';
      row.dataset.encoding = enc;
      row.innerHTML = `<div class="row-label"><strong>${NAMES[enc]}</strong> <span class="source"></span>
          <p class="blurb">${BLURBS[enc]}</p><p class="measured" aria-live="off"></p></div>
        <canvas class="maps" role="img" aria-label="${NAMES[enc]} attention maps"></canvas>
        <canvas class="curve" role="img" aria-label="${NAMES[enc]} accuracy and loss against length"></canvas>`;
      container.append(row);
      rows.set(enc, { el: row, maps: row.querySelector('.maps'), curve: row.querySelector('.curve'),
        measured: row.querySelector('.measured'), source: row.querySelector('.source'), drawn: null, curveKey: null });
    }
  }

  function drawMaps(row, r, s, force) {
    const key = r ? `${r.gen}|${r.length}|${r.trainedLength}|${s.length}|${r.bitmaps.length}` : 'none';
    if (!force && row.drawn === key) return;
    row.drawn = key;
    drawMapsCanvas(row.maps, r, s, MAP_H);
    // what the maps show, for screen readers (and tests): the length drawn, or that it is still computing
    const name = NAMES[row.el.dataset.encoding];
    row.maps.setAttribute('aria-label', r?.length === s.length ? `${name} attention maps at T = ${r.length}`
      : `${name} attention maps, computing T = ${s.length}`);
  }

  function drawCurve(row, enc, s, grid, force) {
    const results = client.results(enc);
    const key = `${results.length}|${results.at(-1)?.gen}|${s.length}|${s.trainLength}`;
    if (!force && row.curveKey === key) return;
    row.curveKey = key;
    const [w, h, ctx] = fitCanvas(row.curve, row.curve.clientHeight || MAP_H);
    ctx.clearRect(0, 0, w, h);
    const shown = results.filter((r) => r.length <= s.length);
    const c = (name, fallback) => cssVar(name, fallback, row.curve);
    drawChart(ctx, { x: 4, y: 4, w: w - 8, h: h - 20 }, curveOptions(shown, s, [grid[0], grid.at(-1)],
      { accent: c('--accent'), loss: c('--loss', '#d9480f'), train: c('--train', '#e0a000'), fg: c('--fg') }));
    const at = (T) => results.find((r) => r.length === T);
    const a1 = at(s.trainLength), aNow = at(s.length) ?? shown.at(-1);
    row.measured.textContent = a1 && aNow
      ? `Measured: accuracy ${a1.accuracy.toFixed(2)} at the training length ${s.trainLength}, ${aNow.accuracy.toFixed(2)} at ${aNow.length} (${(aNow.length / s.trainLength).toFixed(1)}×).`
      : '';
  }

  return {
    build,
    rows,
    /** Draw every row for state `s` (length, layer, trainLength...). */
    draw(s, grid, force = false) {
      for (const [enc, row] of rows) {
        drawMaps(row, client.get(enc, s.length), s, force);
        drawCurve(row, enc, s, grid, force);
      }
    },
    setSource(enc, text) {
      const row = rows.get(enc);
      if (row) row.source.textContent = text;
    },
  };
}
