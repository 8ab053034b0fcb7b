// Retrieval ("lost in the middle"): accuracy against needle depth x input
// length, one heatmap per encoding, from the measured grids in
// ../results.json (written by the experiments) when they are there.
import { interpolateViridis } from 'd3-scale-chromatic';
import { drawHeatmap } from '../heatmap.js';
import { NAMES } from '../meta.js';

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
  const grids = results?.retrieval?.grids ?? results?.retrieval ?? null;
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
