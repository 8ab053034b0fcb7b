// Colour tables from d3 interpolators (no hand-made tables) and a canvas
// heatmap of a row-major matrix, one cell per value.
const luts = new Map();

/** Uint8Array(256 * 3) sampled from a d3-scale-chromatic interpolator. */
export function lutFor(interpolate) {
  if (!luts.has(interpolate)) {
    const lut = new Uint8Array(256 * 3);
    for (let i = 0; i < 256; i++) lut.set(parseRgb(interpolate(i / 255)), i * 3);
    luts.set(interpolate, lut);
  }
  return luts.get(interpolate);
}

export function drawHeatmap(canvas, values, rows, cols, { interpolate, domain }) {
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(cols, rows);
  const [lo, hi] = domain;
  const lut = lutFor(interpolate);
  for (let n = 0; n < rows * cols; n++) {
    const v = values[n];
    const o = n * 4;
    if (!Number.isFinite(v)) {
      img.data[o] = img.data[o + 1] = img.data[o + 2] = 128;
      img.data[o + 3] = 40;
      continue;
    }
    const k = Math.round(Math.max(0, Math.min(1, (v - lo) / (hi - lo))) * 255) * 3;
    img.data[o] = lut[k];
    img.data[o + 1] = lut[k + 1];
    img.data[o + 2] = lut[k + 2];
    img.data[o + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
}

export function parseRgb(css) {
  const m = /rgb\((\d+),\s*(\d+),\s*(\d+)\)/.exec(css);
  if (m) return [+m[1], +m[2], +m[3]];
  const hex = css.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

/**
 * A CSS custom property (theme colours) as seen by `el` (default: the page
 * root). Pass the canvas being drawn so a <posenc-explorer> shadow root's own
 * theme applies.
 */
let cssCache = new WeakMap();
export function cssVar(name, fallback = '#888', el = document.documentElement) {
  if (!cssCache.has(el)) cssCache.set(el, new Map());
  const cache = cssCache.get(el);
  if (!cache.has(name)) cache.set(name, getComputedStyle(el).getPropertyValue(name).trim());
  return cache.get(name) || fallback;
}
/** Forget cached theme colours (after a theme change). */
export function clearCssCache() {
  cssCache = new WeakMap();
}

/**
 * Size a canvas's backing store to its CSS box times the device pixel ratio; returns [w, h] in CSS px.
 * `cssWidth`: its width if the caller has already read it (reading layout after a DOM write forces a layout).
 */
export function fitCanvas(canvas, cssHeight, cssWidth) {
  const dpr = Math.min(2, window.devicePixelRatio || 1);
  const w = Math.max(1, Math.round(cssWidth || canvas.clientWidth || canvas.parentElement.clientWidth));
  const h = Math.max(1, Math.round(cssHeight ?? canvas.clientHeight));
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return [w, h, ctx];
}
