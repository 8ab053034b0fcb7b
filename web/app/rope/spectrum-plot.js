// RoPE frequency spectrum of the trained model: wavelength 2π/θ_i of each rotation pair, before and
// after a context-extension scaling, from pe.ropeFrequencies (HF's formulas, computed by the core) with
// the model's own base and head dim (../rope-figure.js), the training length and the sweep's end marked.
import { cssVar, fitCanvas } from '../shared/heatmap.js';
import { drawChart } from '../shared/chart.js';

export function drawSpectrum(pe, canvas, { headDim, base: ropeBase, trainLength, maxLength, scaling }, notice) {
  if (!(ropeBase > 1)) throw new RangeError(`drawSpectrum: base must be the model's RoPE base (> 1), got ${ropeBase}`);
  const base = pe.ropeFrequencies({ dim: headDim, base: ropeBase }).invFreq;
  const scaled = scaling ? pe.ropeFrequencies({ dim: headDim, base: ropeBase, scaling, seqLen: maxLength }) : null;
  const wl = (f) => Array.from(f, (t, i) => [i, (2 * Math.PI) / t]);
  const a = wl(base), b = scaled ? wl(scaled.invFreq) : null;
  const all = [...a, ...(b ?? [])].map((p) => p[1]);
  const [w, h, ctx] = fitCanvas(canvas, 220);
  ctx.clearRect(0, 0, w, h);
  const box = { x: 48, y: 8, w: w - 56, h: h - 34 };
  const y0 = 2, y1 = Math.max(...all, maxLength) * 2;
  const { py } = drawChart(ctx, box, {
    x: [0, headDim / 2 - 1], y: [y0, y1], yLog: true,
    series: [
      { points: a, colour: cssVar('--muted'), width: 2, dots: true },
      ...(b ? [{ points: b, colour: cssVar('--accent'), width: 2.5, dots: true }] : []),
    ],
    hmarks: [
      { y: trainLength, label: `training length ${trainLength}`, colour: cssVar('--train', '#e0a000') },
      { y: maxLength, label: `sweep end ${maxLength}` },
    ],
    xTicks: Array.from({ length: headDim / 2 }, (_, i) => i),
    xLabel: 'rotation pair i →',
    yLabel: 'wavelength 2π/θᵢ (positions per turn, log scale)',
  });
  ctx.fillStyle = cssVar('--muted');
  ctx.font = '10px system-ui, sans-serif';
  ctx.textAlign = 'right';
  for (let e = 1; 10 ** e < y1; e++) ctx.fillText(String(10 ** e), box.x - 4, py(10 ** e) + 3);
  ctx.textAlign = 'left';
  if (notice) {
    const over = (pts, T) => pts.filter((p) => p[1] > T).length;
    notice.textContent = `What to notice: with the model's base ${ropeBase} and head dim ${headDim}, ${over(a, trainLength)} of the ${a.length} pairs turn less than once in the training length ${trainLength}` +
      (b ? `; with the scaling, ${over(b, trainLength)} do, and ${over(b, maxLength)} turn less than once in the sweep's ${maxLength} positions (${over(a, maxLength)} as trained).`
        : ` and ${over(a, maxLength)} in the sweep's ${maxLength} positions: those show angles at long lengths they never saw.`);
  }
  return { ropeBase, headDim, base: Array.from(base), scaled: scaled ? Array.from(scaled.invFreq) : null, attentionScale: scaled?.attentionScale ?? 1 };
}
