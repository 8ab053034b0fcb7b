import { schemeTableau10 } from '../../vendor/d3.js';

const DIM = 32; // 16 frequency pairs

function colour(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

// One dial per pair: the rotated unit vector (1, 0) at position p, from applyRope itself.
export function drawClocks(pe, canvas, position) {
  const pairs = DIM / 2;
  const x = new Float32Array(DIM);
  for (let i = 0; i < pairs; i++) x[2 * i] = 1;
  const r = pe.applyRope(x, { length: 1, dim: DIM, positions: [position] });
  const ctx = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height, cell = w / pairs, rad = Math.min(cell, h - 30) / 2 - 4;
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
}

// q.k against the offset, for the same q and k starting at several absolute positions.
export function drawOffsetCurve(pe, canvas) {
  const dim = 64, span = 256, starts = [0, 300, 5000];
  const q = new Float32Array(dim).fill(1 / Math.sqrt(dim));
  const k = q;
  const ctx = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height;
  ctx.clearRect(0, 0, w, h);
  starts.forEach((start, s) => {
    const positions = Array.from({ length: span }, (_, t) => start + t);
    const tile = new Float32Array(span * dim);
    for (let t = 0; t < span; t++) tile.set(k, t * dim);
    const rk = pe.applyRope(tile, { length: span, dim, positions });
    const rq = pe.applyRope(q, { length: 1, dim, positions: [start + span - 1] });
    ctx.strokeStyle = schemeTableau10[s];
    ctx.lineWidth = 3 - s;
    ctx.beginPath();
    for (let off = 0; off < span; off++) {
      const j = span - 1 - off;
      let score = 0;
      for (let c = 0; c < dim; c++) score += rq[c] * rk[j * dim + c];
      const px = (off / (span - 1)) * (w - 20) + 10, py = h / 2 - score * (h / 2 - 10);
      off ? ctx.lineTo(px, py) : ctx.moveTo(px, py);
    }
    ctx.stroke();
    ctx.fillStyle = schemeTableau10[s];
    ctx.fillText(`query at ${start + span - 1}`, w - 110, 14 + 14 * s);
  });
}
