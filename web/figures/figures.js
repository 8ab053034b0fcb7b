// Figures for docs/ from docs/results.json, drawn as SVG with d3 (scales,
// axes, lines, colour maps). scripts/figures.js loads this page in headless
// Chromium, calls window.drawFigures(results) and saves each <figure>.
// Rows (encoding, variant, scaling), tasks, floors and grids come from ../app/shared/results-words.js, the same
// reading of results.json that writes docs/results.md.
import { rowsOf, taskInfo, floorOf, tasksOf, gridTasks, gridsOf, guessWords } from '../app/shared/results-words.js';
import { select, scaleLog, scaleLinear, scaleOrdinal, scaleBand, scaleSequential, axisBottom, axisLeft, line, area, schemeTableau10, interpolateViridis } from '../vendor/d3.js';

const M = { top: 14, right: 10, bottom: 34, left: 40 };
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const PALETTE = [...schemeTableau10, '#444444', '#aa0055', '#00aa55', '#5555aa', '#aaaa55', '#55aaaa'];

// Mean, min and max of `field` over a row's seeds at each evaluated length.
function curve(row, lengths, field = 'accuracy') {
  return lengths.map((length) => {
    const xs = row.runs.map((r) => r.lengths.find((l) => l.length === length)?.[field]).filter((x) => x != null);
    return xs.length ? { length, mean: mean(xs), lo: Math.min(...xs), hi: Math.max(...xs) } : null;
  }).filter(Boolean);
}

// refs: horizontal or per-length reference lines (oracle, floors), dotted and labelled at the left.
function linePanel(parent, { title, series, lengths, trainLength, width = 300, height = 200, y: yDomain = [0, 1], yFormat = '%', yTitle = null, refs = [] }) {
  const fig = parent.append('figure');
  fig.append('figcaption').text(title);
  const svg = fig.append('svg').attr('width', width).attr('height', height).attr('xmlns', 'http://www.w3.org/2000/svg');
  const x = scaleLog().base(2).domain([lengths[0], lengths.at(-1)]).range([M.left, width - M.right]);
  const y = scaleLinear().domain(yDomain).range([height - M.bottom, M.top]);
  svg.append('g').attr('transform', `translate(0,${height - M.bottom})`).call(axisBottom(x).tickValues(lengths).tickFormat(String));
  svg.append('g').attr('transform', `translate(${M.left},0)`).call(axisLeft(y).ticks(5, yFormat));
  if (yTitle) svg.append('text').attr('x', 4).attr('y', M.top - 4).attr('font-size', 10).attr('fill', '#444').text(yTitle);
  svg.append('text').attr('x', (M.left + width - M.right) / 2).attr('y', height - 4).attr('text-anchor', 'middle').text('sequence length');
  svg.append('line').attr('x1', x(trainLength)).attr('x2', x(trainLength)).attr('y1', M.top).attr('y2', height - M.bottom)
    .attr('stroke', '#888').attr('stroke-dasharray', '4 3');
  svg.append('text').attr('x', x(trainLength) + 3).attr('y', M.top + 10).attr('fill', '#666').text('train length');
  for (const ref of refs) {
    if (!ref.points.length) continue;
    svg.append('path').datum(ref.points).attr('fill', 'none').attr('stroke', ref.colour ?? '#555').attr('stroke-dasharray', ref.dash ?? '2 2')
      .attr('d', line().x((d) => x(d.length)).y((d) => y(d.value)));
    svg.append('text').attr('x', M.left + 3).attr('y', y(ref.points[0].value) - 3).attr('font-size', 9).attr('fill', ref.colour ?? '#555').text(ref.name);
  }
  for (const { name, points, colour } of series) {
    svg.append('path').datum(points).attr('fill', colour).attr('opacity', 0.15)
      .attr('d', area().x((d) => x(d.length)).y0((d) => y(d.lo)).y1((d) => y(d.hi)));
    svg.append('path').datum(points).attr('fill', 'none').attr('stroke', colour).attr('stroke-width', 1.8)
      .attr('d', line().x((d) => x(d.length)).y((d) => y(d.mean)));
    if (series.length <= 6) // with more, the end labels overlap: the legend names them
      svg.append('text').attr('x', x(points.at(-1).length) - 2).attr('y', y(points.at(-1).mean) - 3).attr('text-anchor', 'end')
        .attr('fill', colour).attr('font-size', 10).text(name);
  }
}

function legend(parent, names, colour) {
  const fig = parent.append('figure');
  const svg = fig.append('svg').attr('width', 10 + 7 * Math.max(10, ...names.map((n) => n.length))).attr('height', 16 * names.length + 8).attr('xmlns', 'http://www.w3.org/2000/svg');
  names.forEach((n, i) => {
    svg.append('rect').attr('x', 2).attr('y', 6 + 16 * i).attr('width', 14).attr('height', 4).attr('fill', colour(n));
    svg.append('text').attr('x', 22).attr('y', 12 + 16 * i).text(n);
  });
}

// One colour per row name (encoding, variant) across every panel.
const rowColour = (results) => scaleOrdinal(PALETTE)
  .domain([...new Set(tasksOf(results).flatMap((t) => rowsOf(results, t).map((r) => r.name)))]);

function accuracyFigure(root, results) {
  const { config } = results;
  const colour = rowColour(results);
  const div = root.append('div').attr('id', 'accuracy-vs-length');
  for (const task of tasksOf(results).filter((t) => taskInfo(results, t).metric === 'accuracy')) {
    const info = taskInfo(results, task), fl = floorOf(info, config.trainLength); // the best floor, at each length
    const series = rowsOf(results, task).map((row) => ({ name: row.name, colour: colour(row.name), points: curve(row, config.evalLengths) }))
      .filter((s) => s.points.length);
    linePanel(div, { title: `${task}: accuracy against length`, series, lengths: config.evalLengths, trainLength: config.trainLength,
      refs: [{ name: guessWords(fl.accuracyName), points: config.evalLengths.map((length) => ({ length, value: floorOf(info, length).accuracy })) }] });
  }
  legend(div, colour.domain(), colour);
}

// Press-style: loss (nats) against length for each loss-metric task, with the oracle and the floors.
function lossFigure(root, results) {
  const { config } = results;
  const colour = rowColour(results);
  for (const task of tasksOf(results).filter((t) => taskInfo(results, t).metric === 'loss')) {
    const info = taskInfo(results, task);
    const div = root.append('div').attr('id', `${task}-loss`);
    const series = rowsOf(results, task).map((row) => ({ name: row.name, colour: colour(row.name), points: curve(row, config.evalLengths, 'loss') }))
      .filter((s) => s.points.length);
    const flat = (value) => config.evalLengths.map((length) => ({ length, value }));
    const oracle = config.evalLengths.map((length) => ({ length, value: info.oracleAt(length, 'oracleLoss') ?? info.oracle?.loss })).filter((d) => d.value != null);
    const refs = [{ name: 'oracle', points: oracle, colour: '#060', dash: '5 2' }, { name: guessWords('uniform'), points: flat(info.chance.loss), colour: '#900' },
      ...info.floors.map((f) => ({ name: guessWords(f.name), points: flat(f.loss), colour: '#a60' }))];
    const top = Math.max(info.chance.loss, ...series.flatMap((s) => s.points.map((p) => p.hi))) * 1.05;
    linePanel(div, { title: `${task}: loss against length (nats; perplexity = e^loss)`, series, lengths: config.evalLengths,
      trainLength: config.trainLength, width: 520, height: 300, y: [0, top], yFormat: '.1f', yTitle: 'loss (nats)', refs });
    legend(div, series.map((s) => s.name), colour);
  }
}

// The models with a scaling applied at evaluation (and fine-tuned variants), beside their plain row.
function ropeScalingFigure(root, results) {
  const { config } = results;
  const tasks = tasksOf(results).filter((t) => rowsOf(results, t, { scaled: true }).length);
  if (!tasks.length) return;
  const rowsFor = (task) => {
    const scaled = rowsOf(results, task, { scaled: true });
    return [...rowsOf(results, task).filter((r) => scaled.some((s) => s.encoding === r.encoding && s.variant === r.variant)), ...scaled];
  };
  const colour = scaleOrdinal(PALETTE).domain([...new Set(tasks.flatMap((t) => rowsFor(t).map((r) => r.name)))]);
  const div = root.append('div').attr('id', 'rope-scaling');
  for (const task of tasks) {
    const isLoss = taskInfo(results, task).metric === 'loss';
    const series = rowsFor(task).map((row) => ({ name: row.name, colour: colour(row.name), points: curve(row, config.evalLengths, isLoss ? 'loss' : 'accuracy') }))
      .filter((s) => s.points.length);
    const top = isLoss ? Math.max(...series.flatMap((s) => s.points.map((p) => p.hi))) * 1.05 : 1;
    linePanel(div, { title: `${task}: scaling at evaluation (${isLoss ? 'loss, nats' : 'accuracy'})`, series, lengths: config.evalLengths,
      trainLength: config.trainLength, y: [0, top], yFormat: isLoss ? '.1f' : '%' });
  }
  legend(div, colour.domain(), colour);
}

// Depth x length grids: the task that needs position first, then the content-only control, each labelled.
function needleFigure(root, results) {
  const { main, control } = gridTasks(results);
  if (!main.length && !control.length) return;
  const div = root.append('div').attr('id', 'needle-grid');
  const colour = scaleSequential(interpolateViridis).domain([0, 1]);
  for (const task of [...main, ...control]) {
    const label = control.includes(task) ? `${task}, control: content alone solves it` : `${task}, needs position`;
    for (const g of gridsOf(results, task)) {
      const { depths, lengths } = g;
      const cellW = 26, cellH = 20, width = M.left + 20 + cellW * lengths.length + M.right, height = M.top + cellH * depths.length + M.bottom + 8;
      const fig = div.append('figure');
      fig.append('figcaption').text(`${g.row.name} (${label})`);
      const svg = fig.append('svg').attr('width', width).attr('height', height).attr('xmlns', 'http://www.w3.org/2000/svg');
      const x = scaleBand().domain(lengths).range([M.left + 20, M.left + 20 + cellW * lengths.length]);
      const y = scaleBand().domain(depths).range([M.top, M.top + cellH * depths.length]);
      depths.forEach((d, di) => lengths.forEach((l, li) => {
        const acc = g.accuracy[di][li];
        svg.append('rect').attr('x', x(l)).attr('y', y(d)).attr('width', x.bandwidth() - 1).attr('height', y.bandwidth() - 1).attr('fill', colour(acc));
        svg.append('text').attr('x', x(l) + x.bandwidth() / 2).attr('y', y(d) + y.bandwidth() / 2 + 3).attr('text-anchor', 'middle')
          .attr('font-size', 8).attr('fill', acc > 0.5 ? '#000' : '#fff').text(Math.round(100 * acc));
      }));
      svg.append('g').attr('transform', `translate(0,${M.top + cellH * depths.length})`).call(axisBottom(x).tickFormat(String))
        .selectAll('text').attr('font-size', 8);
      svg.append('g').attr('transform', `translate(${M.left + 20},0)`).call(axisLeft(y).tickFormat((d) => `${d}`));
      svg.append('text').attr('x', 4).attr('y', M.top + (cellH * depths.length) / 2).attr('font-size', 10).text('depth');
      svg.append('text').attr('x', M.left + 20).attr('y', height - 4).attr('font-size', 10).text('length (train length ' + results.config.trainLength + ')');
    }
  }
}

window.drawFigures = (results) => {
  const root = select(document.body);
  root.selectAll('*').remove();
  accuracyFigure(root, results);
  lossFigure(root, results);
  ropeScalingFigure(root, results);
  needleFigure(root, results);
  return [...document.querySelectorAll('body > div')].map((d) => d.id);
};
document.body.dataset.ready = 'true';
