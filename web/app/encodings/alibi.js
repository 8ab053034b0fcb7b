import { interpolateViridis } from '../../vendor/d3.js';
import { heatmapFigure } from '../shared/chart.js';

/** The share of a query's attention within its last `near` keys from the ALiBi bias alone (equal q·k), per head. */
export function alibiNearShare(bias, heads, T, near) {
  return Array.from({ length: heads }, (_, h) => {
    const row = bias.subarray(h * T * T + (T - 1) * T, h * T * T + T * T);
    const e = Array.from(row, (b) => Math.exp(b)), total = e.reduce((a, b) => a + b, 0);
    return e.slice(T - near).reduce((a, b) => a + b, 0) / total;
  });
}

export function drawAlibi(pe, grid, heads, notice) {
  const T = 32;
  const bias = pe.alibiBias({ heads, queryLength: T, keyLength: T });
  const slopes = pe.alibiSlopes(heads);
  grid.replaceChildren();
  for (let h = 0; h < heads; h++) {
    const fig = document.createElement('figure');
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `ALiBi head ${h + 1} bias, query against key`);
    const cap = document.createElement('figcaption');
    cap.textContent = `head ${h + 1}: m = 1/${Math.round(1 / slopes[h])}`;
    fig.append(canvas, cap);
    grid.append(fig);
    heatmapFigure(canvas, bias.subarray(h * T * T, (h + 1) * T * T), T, T, { interpolate: interpolateViridis, domain: [-8, 0],
      height: Math.max(90, canvas.clientWidth * 0.9), compact: true, xTitle: 'key j', yTitle: 'query i', legendTitle: 'bias' });
  }
  if (notice) {
    const share = alibiNearShare(bias, heads, T, 4), pct = (x) => `${Math.round(100 * x)}%`;
    notice.textContent = `What to notice: with equal q·k, ALiBi head 1 (m = 1/${Math.round(1 / slopes[0])}) puts ${pct(share[0])} of the last query's ` +
      `attention within the last 4 tokens` + (heads > 1 ? `; head ${heads} (m = 1/${Math.round(1 / slopes[heads - 1])}) only ${pct(share[heads - 1])}.` : '.');
  }
}
