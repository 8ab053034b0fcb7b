// The hero's chart (canvas only): accuracy against length on a log axis, one line per encoding, the training
// length and the task's floor marked, and the cursor at the current length. It draws what the controller (hero.js)
// hands it and says where the plot sits, so that a pointer on it can be turned into a length.
import { cssVar, fitCanvas } from '../shared/heatmap.js';
import { guessWords } from '../shared/results-words.js';
import { lengthAxis } from '../shared/length-axis.js';

const FONT = '12px system-ui, sans-serif', BOLD = 'bold 12px system-ui, sans-serif', SMALL = '11px system-ui, sans-serif';

/**
 * Draws the chart on `canvas`. `s`: the page's state (length, trainLength, picks); `grid`: the lengths offered;
 * `lines`: [{enc, points}] in the legend's order; `floor`: the task's floor or null; `colour`: each encoding's;
 * `cursor`: [{enc, accuracy}] for the picked lines valued at the cursor. Returns the plot's box and its length
 * axis ({box, axis}).
 */
export function drawHeroChart(canvas, { s, grid, lines, floor, colour, cursor }) {
  const [w, h, ctx] = fitCanvas(canvas, canvas.clientHeight || 380);
  ctx.clearRect(0, 0, w, h);
  const xs = lines.flatMap((l) => l.points.map((p) => p.length));
  const x0 = Math.min(grid[0], ...xs), x1 = Math.max(grid.at(-1), ...xs);
  const box = { x: 40, y: 22, w: w - 52, h: h - 64 };
  const along = lengthAxis(x0, x1);
  const plot = {
    ctx, canvas, box, x0, x1, h, px: (v) => box.x + along(v) * box.w, py: (v) => box.y + (1 - v) * box.h,
    muted: cssVar('--muted', '#666', canvas), fg: cssVar('--fg', '#222', canvas), grid: cssVar('--grid', '#8884', canvas), train: cssVar('--train', '#b7791f', canvas),
  };
  ctx.font = FONT;
  drawAxes(plot, s);
  // training length and floor
  ctx.setLineDash([5, 4]);
  ctx.strokeStyle = plot.train;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(plot.px(s.trainLength) + 0.5, box.y);
  ctx.lineTo(plot.px(s.trainLength) + 0.5, box.y + box.h);
  ctx.stroke();
  if (floor) drawFloor(plot, floor, s);
  ctx.setLineDash([]);
  drawLines(plot, lines, s.picks, colour);
  drawCursor(plot, s, cursor, colour);
  canvas.dataset.xAxis = 'length T (tokens, log scale)';
  canvas.dataset.yAxis = 'accuracy';
  canvas.dataset.lines = JSON.stringify(Object.fromEntries(lines.map((l) => [l.enc, l.points.length])));
  // the points drawn, each with the sequences it rests on (for tests and exports)
  canvas.dataset.points = JSON.stringify(Object.fromEntries(lines.map((l) => [l.enc, l.points.map((p) => [p.length, p.accuracy, p.sequences, p.measured])])));
  return { box, axis: along };
}

// The grid and y ticks, and the x ticks at multiples of the training length.
function drawAxes({ ctx, box, x0, x1, h, px, py, muted, fg, grid, train }, s) {
  ctx.strokeStyle = grid;
  ctx.lineWidth = 1;
  ctx.fillStyle = muted;
  ctx.textAlign = 'right';
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    ctx.beginPath();
    ctx.moveTo(box.x, Math.round(py(t)) + 0.5);
    ctx.lineTo(box.x + box.w, Math.round(py(t)) + 0.5);
    ctx.stroke();
    ctx.fillText(`${t * 100}%`, box.x - 5, py(t) + 4);
  }
  ctx.textAlign = 'left';
  ctx.fillText('accuracy', box.x, box.y - 8);
  ctx.textAlign = 'center';
  for (let m = 0.5; s.trainLength * m <= x1 * 1.001; m *= 2) {
    const v = s.trainLength * m;
    if (v < x0) continue;
    ctx.fillStyle = m === 1 ? train : fg;
    ctx.font = m === 1 ? BOLD : FONT;
    ctx.fillText(m === 1 ? '1× (trained)' : `${m}×`, px(v), box.y + box.h + 16);
    ctx.fillStyle = muted;
    ctx.font = SMALL;
    ctx.fillText(`${v}`, px(v), box.y + box.h + 30);
  }
  ctx.textAlign = 'right';
  const axis = ['length T (tokens, log scale) and its multiple of the training length', 'length T (tokens, log scale), multiple of training']
    .find((t) => ctx.measureText(t).width <= box.x + box.w) ?? 'length T (log scale)'; // the short one on a phone
  ctx.fillText(axis, box.x + box.w, box.y + box.h + 44 > h - 2 ? h - 2 : box.y + box.h + 44);
}

// The floor: flat, or (floor.points, e.g. copy's bag-of-tokens guess) a line through its value at each measured
// length, with its label.
function drawFloor({ ctx, canvas, box, x0, x1, px, py, muted }, floor, s) {
  const pts = floor.points?.length ? floor.points.filter(([L]) => L >= x0 && L <= x1) : null;
  ctx.strokeStyle = muted;
  ctx.lineWidth = 1;
  ctx.beginPath();
  if (pts?.length) pts.forEach(([L, a], i) => (i ? ctx.lineTo(px(L), py(a) + 0.5) : ctx.moveTo(px(L), py(a) + 0.5)));
  else {
    ctx.moveTo(box.x, py(floor.accuracy) + 0.5);
    ctx.lineTo(box.x + box.w, py(floor.accuracy) + 0.5);
  }
  ctx.stroke();
  ctx.fillStyle = muted;
  ctx.textAlign = 'left';
  const at = pts?.length ? pts.find(([L]) => L === s.trainLength) ?? pts[0] : null;
  const [lx, la] = at ? [px(at[0]), at[1]] : [box.x, floor.accuracy];
  // the longest label that fits (a phone: the shortest), never past the chart's edge; the guess in plain words
  const v = `${Number((100 * la).toFixed(1))}%`, where = at ? ` at T = ${at[0]}` : '';
  const labels = [`${guessWords(floor.name)}: ${v}${where}${at ? ', falling with the length' : ''}`, `${guessWords(floor.name)}: ${v}${where}`, `${guessWords(floor.name)}: ${v}`, `a guess: ${v}`];
  const label = labels.find((t) => Math.min(lx + 4, box.x + 4) + ctx.measureText(t).width <= box.x + box.w) ?? labels.at(-1);
  canvas.dataset.floorLabel = label;
  ctx.fillText(label, Math.max(box.x, Math.min(lx + 4, box.x + box.w - ctx.measureText(label).width)), py(la) - 5);
}

// The lines, the picked ones on top and thicker. A line is drawn through its full points (the shipped measurement,
// or a live one on as many sequences) solid; live points on fewer sequences are hollow rings: past the measured
// ones (or where there are none) joined by a dashed line, between measured ones a ring alone on the picked lines
// (the measured line stays the line).
function drawLines({ ctx, canvas, px, py }, lines, picks, colour) {
  const order = [...lines].sort((a, b) => picks.includes(a.enc) - picks.includes(b.enc));
  for (const { enc, points } of order) {
    if (!points.length) continue;
    const picked = picks.includes(enc);
    const full = points.filter((p) => !p.partial);
    const lo = full[0]?.length ?? Infinity, hi = full.at(-1)?.length ?? -Infinity;
    const inside = (p) => p.length > lo && p.length < hi;
    const path = points.filter((p) => !p.partial || !inside(p)); // the line: full points, and live ones outside them
    ctx.globalAlpha = picked ? 1 : 0.45;
    ctx.strokeStyle = colour[enc];
    ctx.lineWidth = picked ? 3 : 1.5;
    for (let i = 1; i < path.length; i++) {
      const a = path[i - 1], b = path[i];
      ctx.setLineDash(a.partial || b.partial ? [4, 3] : []);
      ctx.beginPath();
      ctx.moveTo(px(a.length), py(a.accuracy));
      ctx.lineTo(px(b.length), py(b.accuracy));
      ctx.stroke();
    }
    ctx.setLineDash([]);
    ctx.lineWidth = 1.5;
    ctx.fillStyle = cssVar('--bg', '#fff', canvas);
    for (const p of points) {
      if (!p.partial || (inside(p) && !picked)) continue;
      ctx.beginPath();
      ctx.arc(px(p.length), py(p.accuracy), picked ? 3.5 : 2.5, 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
  }
}

// The cursor: the current length, with each picked line's value.
function drawCursor({ ctx, box, x0, x1, px, py, fg }, s, cursor, colour) {
  const cx = px(Math.min(x1, Math.max(x0, s.length)));
  ctx.strokeStyle = fg;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(Math.round(cx) + 0.5, box.y);
  ctx.lineTo(Math.round(cx) + 0.5, box.y + box.h);
  ctx.stroke();
  ctx.fillStyle = fg;
  ctx.font = BOLD;
  ctx.textAlign = cx > box.x + box.w - 120 ? 'right' : 'left';
  const x = s.length / s.trainLength;
  ctx.fillText(`T = ${s.length} (${Number.isInteger(x) ? x : x.toFixed(2)}×)`, cx + (ctx.textAlign === 'left' ? 5 : -5), box.y - 8);
  for (const { enc, accuracy } of cursor) {
    ctx.fillStyle = colour[enc];
    ctx.beginPath();
    ctx.arc(cx, py(accuracy), 4.5, 0, 2 * Math.PI);
    ctx.fill();
  }
}
