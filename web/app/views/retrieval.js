// Retrieval ("lost in the middle"): accuracy against needle depth x input
// length, one heatmap per encoding, from the measured grids in
// ../results.json (written by the experiments) when they are there.
import { interpolateViridis } from '../../vendor/d3.js';
import { drawHeatmap } from '../heatmap.js';
import { NAMES } from '../meta.js';

// Per encoding, the depth x length accuracy grid averaged over seeds, from
// results.json (schema: runs[] with task, encoding, scaling, grid {depths, lengths, accuracy[depth][length]}).
export function retrievalGrids(results) {
  const runs = (results?.runs ?? []).filter((r) => r.task === 'retrieval' && r.scaling === 'none' && r.grid);
  if (!runs.length) return null;
  const out = {};
  for (const r of runs) {
    const g = (out[r.encoding] ??= { depths: r.grid.depths, lengths: r.grid.lengths, sum: r.grid.accuracy.map((row) => row.map(() => 0)), n: 0 });
    r.grid.accuracy.forEach((row, d) => row.forEach((a, l) => (g.sum[d][l] += a)));
    g.n++;
  }
  for (const g of Object.values(out)) g.accuracy = g.sum.map((row) => row.map((a) => a / g.n));
  return out;
}

export async function drawRetrieval(grid, note) {
  let results = null;
  try {
    const res = await fetch(new URL('../../checkpoints/index.json', import.meta.url));
    const files = res.ok ? await res.json() : [];
    if (Array.isArray(files) && files.includes('results.json')) {
      const r = await fetch(new URL('../../checkpoints/results.json', import.meta.url));
      if (r.ok) results = await r.json();
    }
  } catch {
    results = null;
  }
  const grids = retrievalGrids(results);
  grid.replaceChildren();
  if (!grids || typeof grids !== 'object') {
    note.textContent = 'No measured retrieval grids ship with this build yet (the retrieval task and its experiment are in progress); ' +
      'this view fills in from web/checkpoints/results.json when they arrive.';
    return null;
  }
  for (const [enc, g] of Object.entries(grids)) {
    const acc = g?.accuracy, depths = g?.depths, lengths = g?.lengths;
    if (!Array.isArray(acc) || !Array.isArray(depths) || !Array.isArray(lengths)) continue;
    const fig = document.createElement('figure');
    const canvas = document.createElement('canvas');
    const cap = document.createElement('figcaption');
    cap.textContent = `${NAMES[enc] ?? enc}: depth ↓ × length →`;
    fig.append(canvas, cap);
    grid.append(fig);
    drawHeatmap(canvas, Float32Array.from(acc.flat()), depths.length, lengths.length, { interpolate: interpolateViridis, domain: [0, 1] });
  }
  note.textContent = '';
  return grids;
}
