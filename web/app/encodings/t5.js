import { schemeTableau10, scaleLinear } from '../../vendor/d3.js';
import { fitCanvas } from '../shared/heatmap.js';
import { axes } from '../shared/chart.js';

export function drawT5(pe, canvas, notice) {
  const span = 160;
  const rel = Array.from({ length: 2 * span + 1 }, (_, i) => i - span);
  const series = [
    [pe.t5Bucket(rel, { bidirectional: true }), 'bidirectional (32 buckets: 16 per direction)'],
    [pe.t5Bucket(rel, { bidirectional: false }), 'causal (32 buckets, keys before the query)'],
  ];
  const [w, h, ctx] = fitCanvas(canvas, canvas.clientHeight || 180);
  ctx.clearRect(0, 0, w, h);
  const box = { x: 40, y: 36, w: w - 52, h: h - 76 };
  const x = scaleLinear([-span, span], [box.x, box.x + box.w]), y = scaleLinear([0, 31], [box.y + box.h, box.y]);
  axes(ctx, box, x, y, { xTitle: 'relative position j − i (tokens)', yTitle: 'bucket', xTicks: 8, yTicks: [0, 8, 16, 24, 31] });
  ctx.font = '11px system-ui, sans-serif';
  let lx = box.x + 4;
  series.forEach(([buckets, label], s) => {
    ctx.strokeStyle = ctx.fillStyle = schemeTableau10[s];
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    buckets.forEach((b, i) => (i ? ctx.lineTo(x(rel[i]), y(b)) : ctx.moveTo(x(rel[i]), y(b))));
    ctx.stroke();
    ctx.fillRect(lx, 8, 14, 3);
    ctx.fillText(label, lx + 18, 13);
    lx += 36 + ctx.measureText(label).width;
  });
  // what to notice: where buckets stop being one per offset, and the shared bucket past the maximum distance
  if (notice) {
    const causal = series[1][0], back = (d) => causal[span - d];
    let exact = 0;
    while (exact + 1 <= span && back(exact + 1) === exact + 1) exact++;
    let shared = span;
    while (shared > 0 && back(shared - 1) === back(span)) shared--;
    notice.textContent = `What to notice: in the causal buckets each offset up to ${exact} tokens back has its own bucket; from ${shared} tokens back ` +
      `on, every offset shares bucket ${back(span)} — ${new Set(causal).size} buckets cover all ${span + 1} offsets shown.`;
  }
}
