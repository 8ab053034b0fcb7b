import { interpolateRdBu } from '../../vendor/d3.js';
import { drawHeatmap } from '../heatmap.js';

export function drawSinusoid(pe, section, { sinDim, sinLength }) {
  const values = pe.sinusoidal({ length: sinLength, dim: sinDim });
  drawHeatmap(section.querySelector('canvas'), values, sinLength, sinDim, { interpolate: interpolateRdBu, domain: [-1, 1] });
}
