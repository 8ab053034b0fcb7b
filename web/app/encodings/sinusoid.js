import { interpolateRdBu } from '../../vendor/d3.js';
import { heatmapFigure } from '../shared/chart.js';

export function drawSinusoid(pe, section, { sinDim, sinLength }) {
  const values = pe.sinusoidal({ length: sinLength, dim: sinDim });
  const canvas = section.querySelector('canvas');
  heatmapFigure(canvas, values, sinLength, sinDim, { interpolate: interpolateRdBu, domain: [-1, 1], height: canvas.clientHeight || 320,
    xTitle: 'dimension (pairs 2i, 2i+1: sin, cos)', yTitle: 'position p', legendTitle: 'value' });
  // what to notice: the fastest and slowest pairs' wavelengths against the positions shown
  const pairs = Math.floor(sinDim / 2), wl = (i) => 2 * Math.PI * 10000 ** ((2 * i) / sinDim);
  const unfinished = Array.from({ length: pairs }, (_, i) => i).filter((i) => wl(i) > sinLength).length;
  section.querySelector('.notice').textContent = `What to notice: pair 0 turns once every ${wl(0).toFixed(1)} positions, the last pair ` +
    `(${pairs - 1}) once every ${Math.round(wl(pairs - 1)).toLocaleString('en')}; ${unfinished} of the ${pairs} pairs do not complete one turn in the ${sinLength} positions shown.`;
}
