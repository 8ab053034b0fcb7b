// Retrieval ("lost in the middle"): accuracy against needle depth x input
// length, one heatmap per encoding, from the measured grids in
// ../results.json (written by the experiments) when they are there.
import { interpolateViridis } from '../../vendor/d3.js';
import { heatmapFigure } from '../chart.js';
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

export async function drawRetrieval(grid, note, notice) {
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
    cap.textContent = `${NAMES[enc] ?? enc}: accuracy by needle depth and input length`;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${NAMES[enc] ?? enc} retrieval accuracy, needle depth against input length`);
    fig.append(canvas, cap);
    grid.append(fig);
    heatmapFigure(canvas, Float32Array.from(acc.flat()), depths.length, lengths.length, { interpolate: interpolateViridis, domain: [0, 1],
      height: Math.max(140, canvas.clientWidth * 0.8), xLabels: lengths, yLabels: depths,
      xTitle: 'input length (tokens)', yTitle: 'needle depth (0 = start)', legendTitle: 'accuracy' });
  }
  note.textContent = '';
  if (notice) {
    const worst = Object.entries(grids).map(([enc, g]) => {
      let m = { a: 2 };
      g.accuracy.forEach((row, d) => row.forEach((a, l) => { if (a < m.a) m = { a, d: g.depths[d], l: g.lengths[l] }; }));
      return { enc, ...m };
    }).sort((p, q) => p.a - q.a)[0];
    notice.textContent = worst ? `What to notice: the lowest accuracy on these grids is ${NAMES[worst.enc] ?? worst.enc}'s ` +
      `${worst.a.toFixed(2)}, with the needle at depth ${worst.d} of a ${worst.l}-token input.` : '';
  }
  return grids;
}
