import { schemeTableau10 } from '../../vendor/d3.js';

export function drawT5(pe, canvas) {
  const span = 160;
  const rel = Array.from({ length: 2 * span + 1 }, (_, i) => i - span);
  const series = [
    [pe.t5Bucket(rel, { bidirectional: true }), 'bidirectional'],
    [pe.t5Bucket(rel, { bidirectional: false }), 'causal'],
  ];
  const ctx = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height;
  ctx.clearRect(0, 0, w, h);
  series.forEach(([buckets, label], s) => {
    ctx.strokeStyle = ctx.fillStyle = schemeTableau10[s];
    ctx.beginPath();
    buckets.forEach((b, i) => {
      const px = (i / (rel.length - 1)) * (w - 20) + 10, py = h - 10 - (b / 31) * (h - 30);
      i ? ctx.lineTo(px, py) : ctx.moveTo(px, py);
    });
    ctx.stroke();
    ctx.fillText(label, 14, 14 + 14 * s);
  });
}
