// Retrieval ("lost in the middle"): accuracy against needle depth x input length, one heatmap per row, from the
// measured grids in ../checkpoints/results.json. The grid of a task whose answer depends on position
// (kth_retrieval) when it was measured; otherwise the content-only retrieval, labelled as a control. Every
// sentence is computed from the grids by ../results-words.js.
import { interpolateViridis } from '../../vendor/d3.js';
import { heatmapFigure } from '../chart.js';
import { rowLabel, taskName } from '../meta.js';
import { gridTasks, gridsOf, depthEffect, gradientSentence, taskInfo, pct } from '../results-words.js';

/**
 * The grids the view draws: { task, control, grids: { [row name]: {encoding, depths, lengths, accuracy} } }
 * (seed-averaged, accuracy[depth][length]), or null when results has none.
 */
export function retrievalGrids(results) {
  if (!results?.runs || !results.config) return null;
  const { main, control } = gridTasks(results);
  const task = main[0] ?? control[0];
  if (!task) return null;
  const grids = {};
  for (const g of gridsOf(results, task)) grids[g.row.name] = { ...g, encoding: g.row.encoding };
  return { task, control: !main.length, grids };
}

/** The view's words: which task, what it can show, and each row's depth gradient in plain words. */
export function retrievalWords(results, view) {
  const T = results.config.trainLength;
  const info = taskInfo(results, view.task), nope = Object.values(view.grids).find((g) => g.encoding === 'none' && !g.row.variant);
  const nopeMin = nope ? Math.min(...nope.accuracy.map((row) => row.at(-1))) : null;
  const why = info.what ? ` What it can show: ${info.what}.${info.cannot ? ` What it cannot: ${info.cannot}.` : ''}`
    : view.control && nopeMin != null ? ` NoPE, which sees no positions, scores at least ${pct(nopeMin)}% at every depth at ${nope.lengths.at(-1)} tokens: content alone solves it.` : '';
  const head = `These grids are from the ${taskName(view.task)} task${view.control ? ', a control that cannot show position effects' : ''}.${why}`;
  const rows = Object.values(view.grids).map((g) => gradientSentence(g, T, rowLabel));
  // What to notice: the row with the largest far-near difference at the longest length.
  const steepest = Object.values(view.grids).filter((g) => g.learnedSeeds !== 0).map((g) => ({ g, e: depthEffect(g, T).at(-1) }))
    .filter((x) => x.e).sort((a, b) => Math.abs(b.e.near - b.e.far) - Math.abs(a.e.near - a.e.far))[0];
  const notice = steepest ? `What to notice: ${gradientSentence(steepest.g, T, rowLabel)}` : '';
  return { head, rows, notice };
}

export function drawRetrieval(results, grid, note, notice) {
  const view = retrievalGrids(results);
  grid.replaceChildren();
  if (!view) {
    note.textContent = 'No measured retrieval grids ship with this build.';
    if (notice) notice.textContent = '';
    return null;
  }
  for (const [name, g] of Object.entries(view.grids)) {
    const fig = document.createElement('figure');
    const canvas = document.createElement('canvas');
    const cap = document.createElement('figcaption');
    const label = rowLabel(g.row);
    cap.textContent = `${label}: accuracy by needle depth and input length (${taskName(view.task)}${view.control ? ', control' : ''}${g.learnedSeeds === 0 ? '; did not learn' : ''})`;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${label} ${taskName(view.task)} accuracy, needle depth against input length`);
    fig.append(canvas, cap);
    grid.append(fig);
    heatmapFigure(canvas, Float32Array.from(g.accuracy.flat()), g.depths.length, g.lengths.length, { interpolate: interpolateViridis, domain: [0, 1],
      height: Math.max(140, canvas.clientWidth * 0.8), xLabels: g.lengths, yLabels: g.depths,
      xTitle: 'input length (tokens)', yTitle: 'needle depth (0 = start)', legendTitle: 'accuracy' });
  }
  const words = retrievalWords(results, view);
  note.replaceChildren(words.head, ...words.rows.flatMap((s) => [document.createElement('br'), s]));
  if (notice) notice.textContent = words.notice;
  return { task: view.task, control: view.control, grids: Object.fromEntries(Object.entries(view.grids).map(([k, g]) =>
    [k, { encoding: g.encoding, depths: g.depths, lengths: g.lengths, accuracy: g.accuracy }])) };
}
