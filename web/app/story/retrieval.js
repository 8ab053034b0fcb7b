// Retrieval ("lost in the middle"): accuracy against needle depth, one line per row at the input length the reader
// picks, with every row's heatmap (needle depth x input length) on demand, from the measured grids in
// ../checkpoints/results.json. The grid of a task whose answer depends on position
// (kth_retrieval) when it was measured; otherwise the content-only retrieval, labelled as a control. Every
// sentence is computed from the grids by ../shared/results-words.js.
import { interpolateViridis } from '../../vendor/d3.js';
import { heatmapFigure, drawChart } from '../shared/chart.js';
import { cssVar, fitCanvas } from '../shared/heatmap.js';
import { encodingColours } from '../shared/palette.js';
import { rowLabel, taskName } from '../shared/meta.js';
import { gridTasks, gridsOf, depthEffect, gradientSentence, taskInfo, pct } from '../shared/results-words.js';

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

/**
 * One line per row at one input length: accuracy against needle depth. Rows that did not learn the task at 1× on
 * any seed are marked (drawn grey and dashed, as the maps of models that did not learn are greyed).
 * @returns {lengthIndex, length, lines: [{name, encoding, label, learned, points: [[depth, accuracy]]}]}
 */
export function depthLines(view, length) {
  const any = Object.values(view.grids)[0];
  const lengthIndex = Math.max(0, any.lengths.indexOf(length));
  return {
    lengthIndex,
    length: any.lengths[lengthIndex],
    lines: Object.entries(view.grids).map(([name, g]) => ({ name, encoding: g.encoding, label: rowLabel(g.row), learned: g.learnedSeeds !== 0,
      variant: !!g.row.variant, points: g.depths.map((d, di) => [d, g.accuracy[di][lengthIndex]]) })),
  };
}

/** The readout of one line at its length, in words: far end, middle (lowest inner depth), near end. */
export function lineReadout(line) {
  const acc = line.points.map(([, a]) => a), inner = acc.slice(1, -1);
  const mid = inner.length ? Math.min(...inner) : null;
  return `${pct(acc[0])}% far${mid == null ? '' : `, ${pct(mid)}% middle`}, ${pct(acc.at(-1))}% near`;
}

function drawLines(canvas, view, lines, colour, T) {
  const [w, h, ctx] = fitCanvas(canvas, canvas.clientHeight || 260);
  ctx.clearRect(0, 0, w, h);
  const box = { x: 34, y: 22, w: w - 44, h: h - 52 };
  const muted = cssVar('--muted', undefined, canvas);
  const series = [...lines.lines].sort((a, b) => a.learned - b.learned).map((l) => ({
    points: l.points, colour: l.learned ? colour[l.encoding] : muted, dash: !l.learned ? [2, 3] : l.variant ? [6, 3] : [], width: l.learned ? 2 : 1, dots: true,
  }));
  drawChart(ctx, box, { x: [0, 1], y: [0, 1], series, xTicks: view.depths, yTicks: [0, 0.25, 0.5, 0.75, 1], yLabelTop: true,
    xLabel: 'needle depth (0 = start of the input, farthest from the question)', yLabel: `accuracy at T = ${lines.length} (${times(lines.length / T)})` });
  canvas.setAttribute('aria-label', `Accuracy against needle depth at T = ${lines.length}, one line per encoding: ` +
    lines.lines.map((l) => `${l.label} ${lineReadout(l)}${l.learned ? '' : ' (did not learn)'}`).join('; '));
  canvas.dataset.lines = String(lines.lines.length);
}

const times = (x) => `${Number.isInteger(x) ? x : x.toFixed(1)}×`;

function drawGrids(view, grid) {
  grid.replaceChildren();
  for (const g of Object.values(view.grids)) {
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
}

/**
 * The section: a line per encoding (accuracy against needle depth) at the input length the reader picks
 * (state.retrievalLength, 0 = the longest measured), its key with each line's far / middle / near accuracy, the words,
 * and the per-encoding heatmaps over every length, drawn when the reader opens them.
 */
export function createRetrieval(section, state, { encodingsAll, onChange = () => {} }) {
  const canvas = section.querySelector('canvas.retrieval-lines'), select = section.querySelector('select.retrieval-length');
  const key = section.querySelector('.retrieval-key'), details = section.querySelector('details.retrieval-maps');
  const note = section.querySelector('.measured'), notice = section.querySelector('.notice'), grid = section.querySelector('.retrieval-grid');
  const colour = encodingColours(encodingsAll);
  let results = null, view = null, data = null;

  function draw() {
    if (!view) return;
    const T = results.config.trainLength, any = Object.values(view.grids)[0];
    const length = any.lengths.includes(state.retrievalLength) ? state.retrievalLength : any.lengths.at(-1);
    select.value = String(length);
    const lines = depthLines(view, length);
    drawLines(canvas, { depths: any.depths }, lines, colour, T);
    key.replaceChildren(...lines.lines.map((l) => {
      const li = document.createElement('li');
      const sw = document.createElement('span');
      sw.className = 'swatch';
      if (l.learned) sw.style.background = colour[l.encoding];
      else sw.classList.add('greyed');
      li.dataset.row = l.name;
      li.append(sw, ` ${l.label}: ${lineReadout(l)}${l.learned ? '' : ' (did not learn at 1×: greyed)'}`);
      return li;
    }));
    if (details.open && !grid.childElementCount) drawGrids(view, grid);
    data = { task: view.task, control: view.control, length, lines: lines.lines,
      grids: Object.fromEntries(Object.entries(view.grids).map(([k, g]) => [k, { encoding: g.encoding, depths: g.depths, lengths: g.lengths, accuracy: g.accuracy }])) };
  }

  select.addEventListener('change', () => {
    state.retrievalLength = Number(select.value);
    onChange();
    draw();
  });
  details.addEventListener('toggle', () => { if (details.open && view && !grid.childElementCount) drawGrids(view, grid); });

  return {
    /** The shipped results (the grids come from them); null draws the "none shipped" note. */
    setResults(r) {
      results = r;
      view = retrievalGrids(r);
      grid.replaceChildren();
      if (!view) {
        note.textContent = 'No measured retrieval grids ship with this build.';
        notice.textContent = '';
        section.querySelector('.retrieval-figure').hidden = true;
        data = null;
        return;
      }
      const T = r.config.trainLength, any = Object.values(view.grids)[0];
      select.replaceChildren(...any.lengths.map((L) => new Option(`T = ${L} (${times(L / T)})`, String(L))));
      const words = retrievalWords(r, view);
      note.replaceChildren(words.head, ...words.rows.flatMap((s) => [document.createElement('br'), s]));
      notice.textContent = words.notice;
      draw();
    },
    redraw: draw,
    data: () => data,
  };
}
