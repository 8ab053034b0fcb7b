// Draw a row-major matrix into a canvas, one cell per value, through a d3 colour map.
export function drawHeatmap(canvas, values, rows, cols, { interpolate, domain }) {
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(cols, rows);
  const [lo, hi] = domain;
  const lut = Array.from({ length: 256 }, (_, i) => parseRgb(interpolate(i / 255)));
  for (let n = 0; n < rows * cols; n++) {
    const v = values[n];
    const t = Number.isFinite(v) ? Math.max(0, Math.min(1, (v - lo) / (hi - lo))) : 0;
    const [r, g, b] = Number.isFinite(v) ? lut[Math.round(t * 255)] : [128, 128, 128];
    img.data.set([r, g, b, Number.isFinite(v) ? 255 : 40], n * 4);
  }
  ctx.putImageData(img, 0, 0);
}

function parseRgb(css) {
  const m = /rgb\((\d+),\s*(\d+),\s*(\d+)\)/.exec(css);
  if (m) return [+m[1], +m[2], +m[3]];
  const hex = css.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
}
