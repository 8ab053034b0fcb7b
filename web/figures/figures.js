// Figures for docs/ from docs/results.json, drawn as SVG with d3 (scales,
// axes, lines, colour maps). scripts/figures.js loads this page in headless
// Chromium, calls window.drawFigures(results) and saves each <figure>.
import { select, scaleLog, scaleLinear, scaleOrdinal, scaleBand, scaleSequential, axisBottom, axisLeft, line, area, schemeTableau10, interpolateViridis } from '../vendor/d3.js';

const M = { top: 10, right: 10, bottom: 34, left: 40 };
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

// Mean, min and max accuracy over seeds at each evaluated length.
function curve(runs, task, encoding, scaling, lengths) {
  const sel = runs.filter((r) => r.task === task && r.encoding === encoding && r.scaling === scaling);
  if (!sel.length) return null;
  return lengths.map((length) => {
    const xs = sel.map((r) => r.lengths.find((l) => l.length === length)?.accuracy).filter((x) => x != null);
    return { length, mean: mean(xs), lo: Math.min(...xs), hi: Math.max(...xs) };
  });
}

function linePanel(parent, { title, series, lengths, trainLength, width = 300, height = 200 }) {
  const fig = parent.append('figure');
  fig.append('figcaption').text(title);
  const svg = fig.append('svg').attr('width', width).attr('height', height).attr('xmlns', 'http://www.w3.org/2000/svg');
  const x = scaleLog().base(2).domain([lengths[0], lengths.at(-1)]).range([M.left, width - M.right]);
  const y = scaleLinear().domain([0, 1]).range([height - M.bottom, M.top]);
  svg.append('g').attr('transform', `translate(0,${height - M.bottom})`).call(axisBottom(x).tickValues(lengths).tickFormat(String));
  svg.append('g').attr('transform', `translate(${M.left},0)`).call(axisLeft(y).ticks(5, '%'));
  svg.append('text').attr('x', (M.left + width - M.right) / 2).attr('y', height - 4).attr('text-anchor', 'middle').text('sequence length');
  svg.append('line').attr('x1', x(trainLength)).attr('x2', x(trainLength)).attr('y1', M.top).attr('y2', height - M.bottom)
    .attr('stroke', '#888').attr('stroke-dasharray', '4 3');
  svg.append('text').attr('x', x(trainLength) + 3).attr('y', M.top + 10).attr('fill', '#666').text('train length');
  for (const { name, points, colour } of series) {
    svg.append('path').datum(points).attr('fill', colour).attr('opacity', 0.15)
      .attr('d', area().x((d) => x(d.length)).y0((d) => y(d.lo)).y1((d) => y(d.hi)));
    svg.append('path').datum(points).attr('fill', 'none').attr('stroke', colour).attr('stroke-width', 1.8)
      .attr('d', line().x((d) => x(d.length)).y((d) => y(d.mean)));
    svg.append('text').attr('x', x(points.at(-1).length) - 2).attr('y', y(points.at(-1).mean) - 3).attr('text-anchor', 'end')
      .attr('fill', colour).attr('font-size', 10).text(name);
  }
}

function legend(parent, names, colour) {
  const fig = parent.append('figure');
  const svg = fig.append('svg').attr('width', 130).attr('height', 16 * names.length + 8).attr('xmlns', 'http://www.w3.org/2000/svg');
  names.forEach((n, i) => {
    svg.append('rect').attr('x', 2).attr('y', 6 + 16 * i).attr('width', 14).attr('height', 4).attr('fill', colour(n));
    svg.append('text').attr('x', 22).attr('y', 12 + 16 * i).text(n);
  });
}

function accuracyFigure(root, results) {
  const { config, runs } = results;
  const colour = scaleOrdinal(schemeTableau10).domain(config.encodings);
  const div = root.append('div').attr('id', 'accuracy-vs-length');
  for (const task of config.tasks) {
    const series = config.encodings
      .map((e) => ({ name: e, colour: colour(e), points: curve(runs, task, e, 'none', config.evalLengths) }))
      .filter((s) => s.points);
    linePanel(div, { title: `${task}: accuracy against length`, series, lengths: config.evalLengths, trainLength: config.trainLength });
  }
  legend(div, config.encodings, colour);
}

function ropeScalingFigure(root, results) {
  const { config, runs } = results;
  const scalings = ['none', 'linear', 'ntk', 'dynamic', 'yarn'].filter((s) => runs.some((r) => r.encoding === 'rope' && r.scaling === s));
  if (scalings.length < 2) return;
  const colour = scaleOrdinal(schemeTableau10).domain(scalings);
  const div = root.append('div').attr('id', 'rope-scaling');
  for (const task of config.tasks) {
    const series = scalings.map((s) => ({ name: s, colour: colour(s), points: curve(runs, task, 'rope', s, config.evalLengths) })).filter((s) => s.points);
    linePanel(div, { title: `${task}: RoPE + scaling at evaluation`, series, lengths: config.evalLengths, trainLength: config.trainLength });
  }
  legend(div, scalings, colour);
}

function needleFigure(root, results) {
  const grids = results.runs.filter((r) => r.grid && r.scaling === 'none');
  if (!grids.length) return;
  const div = root.append('div').attr('id', 'needle-grid');
  const { depths, lengths } = grids[0].grid;
  const colour = scaleSequential(interpolateViridis).domain([0, 1]);
  const cellW = 26, cellH = 20, width = M.left + 20 + cellW * lengths.length + M.right, height = M.top + cellH * depths.length + M.bottom + 8;
  for (const encoding of results.config.encodings) {
    const gs = grids.filter((g) => g.encoding === encoding);
    if (!gs.length) continue;
    const fig = div.append('figure');
    fig.append('figcaption').text(`${encoding}: needle depth × length`);
    const svg = fig.append('svg').attr('width', width).attr('height', height).attr('xmlns', 'http://www.w3.org/2000/svg');
    const x = scaleBand().domain(lengths).range([M.left + 20, M.left + 20 + cellW * lengths.length]);
    const y = scaleBand().domain(depths).range([M.top, M.top + cellH * depths.length]);
    depths.forEach((d, di) => lengths.forEach((l, li) => {
      const acc = mean(gs.map((g) => g.grid.accuracy[di][li]));
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

window.drawFigures = (results) => {
  const root = select(document.body);
  root.selectAll('*').remove();
  accuracyFigure(root, results);
  ropeScalingFigure(root, results);
  needleFigure(root, results);
  return [...document.querySelectorAll('body > div')].map((d) => d.id);
};
document.body.dataset.ready = 'true';
