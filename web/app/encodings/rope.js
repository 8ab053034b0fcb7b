import { schemeTableau10, scaleLinear } from '../../vendor/d3.js';
import { fitCanvas } from '../shared/heatmap.js';
import { axes } from '../shared/chart.js';

const DIM = 32; // 16 frequency pairs

function colour(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

// One dial per pair: the rotated unit vector (1, 0) at position p, from applyRope itself.
export function drawClocks(pe, canvas, position, notice) {
  const pairs = DIM / 2;
  const x = new Float32Array(DIM);
  for (let i = 0; i < pairs; i++) x[2 * i] = 1;
  const r = pe.applyRope(x, { length: 1, dim: DIM, positions: [position] });
  const ctx = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height, cell = w / pairs, rad = Math.min(cell, h - 44) / 2 - 4;
  ctx.clearRect(0, 0, w, h);
  ctx.font = '10px system-ui';
  ctx.textAlign = 'center';
  for (let i = 0; i < pairs; i++) {
    const cx = cell * (i + 0.5), cy = rad + 6;
    ctx.strokeStyle = colour('--muted');
    ctx.beginPath();
    ctx.arc(cx, cy, rad, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.strokeStyle = schemeTableau10[0];
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(cx, cy);
    ctx.lineTo(cx + rad * r[2 * i], cy - rad * r[2 * i + 1]);
    ctx.stroke();
    ctx.lineWidth = 1;
    ctx.fillStyle = colour('--muted');
    ctx.fillText(`i=${i}`, cx, cy + rad + 14);
  }
  // axis: which pair each dial is, and what the hand shows
  ctx.fillStyle = colour('--fg');
  ctx.fillText(`rotation pair i (θᵢ = 10000^(−2i/${DIM}), fast → slow) · hand: angle p·θᵢ at position p = ${position}, from 3 o'clock, anticlockwise`, w / 2, 2 * rad + 38);
  canvas.dataset.xAxis = 'rotation pair i';
  canvas.dataset.yAxis = 'angle p·θᵢ (hand direction)';
  if (notice) {
    const theta = (i) => 10000 ** ((-2 * i) / DIM), turns = (i) => (position * theta(i)) / (2 * Math.PI);
    notice.textContent = `What to notice: at position ${position} the fastest hand (pair 0) has made ${turns(0).toFixed(1)} full turns, ` +
      `the slowest (pair ${pairs - 1}) ${(turns(pairs - 1) * 360).toFixed(1)}° of one turn.`;
  }
}

// q.k against the offset, for the same q and k starting at several absolute positions.
export function drawOffsetCurve(pe, canvas, notice) {
  const dim = 64, span = 256, starts = [0, 300, 5000];
  const q = new Float32Array(dim).fill(1 / Math.sqrt(dim));
  const k = q;
  const [w, h, ctx] = fitCanvas(canvas, canvas.clientHeight || 200);
  ctx.clearRect(0, 0, w, h);
  const box = { x: 44, y: 36, w: w - 56, h: h - 76 };
  const x = scaleLinear([0, span - 1], [box.x, box.x + box.w]), y = scaleLinear([-1, 1], [box.y + box.h, box.y]);
  axes(ctx, box, x, y, { xTitle: 'offset m − n (tokens between query and key)', yTitle: 'score ⟨R_m q, R_n k⟩ (|q| = |k| = 1)', yTicks: [-1, -0.5, 0, 0.5, 1] });
  ctx.font = '11px system-ui, sans-serif';
  const curves = starts.map((start, s) => {
    const positions = Array.from({ length: span }, (_, t) => start + t);
    const tile = new Float32Array(span * dim);
    for (let t = 0; t < span; t++) tile.set(k, t * dim);
    const rk = pe.applyRope(tile, { length: span, dim, positions });
    const rq = pe.applyRope(q, { length: 1, dim, positions: [start + span - 1] });
    const scores = new Float64Array(span);
    for (let off = 0; off < span; off++) {
      const j = span - 1 - off;
      for (let c = 0; c < dim; c++) scores[off] += rq[c] * rk[j * dim + c];
    }
    ctx.strokeStyle = schemeTableau10[s];
    ctx.lineWidth = 3 - s;
    ctx.beginPath();
    scores.forEach((v, off) => (off ? ctx.lineTo(x(off), y(v)) : ctx.moveTo(x(off), y(v))));
    ctx.stroke();
    ctx.fillStyle = schemeTableau10[s];
    ctx.fillRect(box.x + 4 + 120 * s, 9, 14, 3);
    ctx.fillText(`query at ${start + span - 1}`, box.x + 22 + 120 * s, 14);
    return scores;
  });
  if (notice) {
    let diff = 0;
    for (let off = 0; off < span; off++) for (const c of curves) diff = Math.max(diff, Math.abs(c[off] - curves[0][off]));
    notice.textContent = `What to notice: the three curves differ by at most ${diff.toExponential(1)} (float32 rounding) over ${span} offsets, ` +
      `though their queries sit at ${starts.map((s0) => s0 + span - 1).join(', ')}: the score depends only on the offset.`;
  }
}
