import { interpolateViridis } from '../../vendor/d3.js';
import { drawHeatmap } from '../heatmap.js';

export function drawAlibi(pe, grid, heads) {
  const T = 32;
  const bias = pe.alibiBias({ heads, queryLength: T, keyLength: T });
  const slopes = pe.alibiSlopes(heads);
  grid.replaceChildren();
  for (let h = 0; h < heads; h++) {
    const fig = document.createElement('figure');
    const canvas = document.createElement('canvas');
    const cap = document.createElement('figcaption');
    cap.textContent = `head ${h + 1}: m = 1/${Math.round(1 / slopes[h])}`;
    fig.append(canvas, cap);
    grid.append(fig);
    drawHeatmap(canvas, bias.subarray(h * T * T, (h + 1) * T * T), T, T, { interpolate: interpolateViridis, domain: [-8, 0] });
  }
}
