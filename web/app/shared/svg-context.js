// A canvas-2D-shaped object that writes SVG: the subset of CanvasRenderingContext2D
// the explorer's drawing code uses (rectangles, straight paths, dashes, text,
// images, save/restore, translate/scale). Drawing a frame through it gives the
// same layout as on a canvas, with text as <text> and lines as <path>; images
// (the attention maps) are embedded as PNG. Anything outside the subset (arcs,
// rotations, gradients) throws, so a drawing that cannot be written faithfully
// fails loudly instead of coming out wrong.

const esc = (s) => String(s).replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);
const num = (v) => String(Math.round(v * 100) / 100);

/** A CSS colour as SVG attributes: rgba() and #rgba/#rrggbbaa become an opaque colour plus an opacity (SVG 1.1 readers). */
export function paintAttrs(kind, colour) {
  const c = String(colour).trim();
  let m = /^rgba\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+%?)\s*\)$/i.exec(c);
  if (m) {
    const a = m[4].endsWith('%') ? parseFloat(m[4]) / 100 : Number(m[4]);
    return `${kind}="rgb(${m[1]},${m[2]},${m[3]})" ${kind}-opacity="${num(a)}"`;
  }
  m = /^#([0-9a-f]{4}|[0-9a-f]{8})$/i.exec(c);
  if (m) {
    const h = m[1].length === 4 ? [...m[1]].map((d) => d + d).join('') : m[1];
    return `${kind}="#${h.slice(0, 6)}" ${kind}-opacity="${num(parseInt(h.slice(6), 16) / 255)}"`;
  }
  return `${kind}="${esc(c)}"`;
}

/** CSS font shorthand ("bold 14px system-ui, sans-serif") as SVG text attributes, scaled by `k`. */
function fontAttrs(font, k) {
  const m = /^\s*(?:(italic|oblique|normal)\s+)?(?:(bold|normal|[1-9]00)\s+)?([\d.]+)px\s+(.+)$/.exec(font);
  if (!m) throw new RangeError(`svg context: font must look like "[bold] 12px family" (got ${JSON.stringify(font)})`);
  return `font-family="${esc(m[4])}" font-size="${num(Number(m[3]) * k)}"${m[2] && m[2] !== 'normal' ? ` font-weight="${m[2]}"` : ''}` +
    `${m[1] && m[1] !== 'normal' ? ` font-style="${m[1]}"` : ''}`;
}

const ANCHOR = { left: 'start', start: 'start', center: 'middle', right: 'end', end: 'end' };
const BASELINE = { alphabetic: '', top: ' dominant-baseline="hanging"', hanging: ' dominant-baseline="hanging"', middle: ' dominant-baseline="central"',
  bottom: ' dominant-baseline="text-after-edge"', ideographic: ' dominant-baseline="ideographic"' };

/**
 * A context for a width x height drawing. Draw with it as with a canvas, then `await ctx.toSvg(title)`.
 * `measure` (optional) is a real 2-D context used for measureText.
 */
export function createSvgContext(width, height, { measure = null } = {}) {
  const parts = [];
  const images = []; // {i, canvas} copied at draw time (the source may be closed or redrawn afterwards)
  const stack = [];
  let path = [];
  // Only axis-aligned transforms: x' = sx * x + tx, y' = sy * y + ty.
  let m = { sx: 1, sy: 1, tx: 0, ty: 0 };
  let dash = [];
  const X = (x) => m.sx * x + m.tx;
  const Y = (y) => m.sy * y + m.ty;
  const k = () => Math.abs(m.sx);
  const dashAttr = () => (dash.length ? ` stroke-dasharray="${dash.map((d) => num(d * k())).join(' ')}"` : '');
  const rectXY = (x, y, w, h) => {
    const x0 = X(x), y0 = Y(y), x1 = X(x + w), y1 = Y(y + h);
    return `x="${num(Math.min(x0, x1))}" y="${num(Math.min(y0, y1))}" width="${num(Math.abs(x1 - x0))}" height="${num(Math.abs(y1 - y0))}"`;
  };

  const ctx = {
    canvas: { width, height },
    fillStyle: '#000',
    strokeStyle: '#000',
    lineWidth: 1,
    font: '10px sans-serif',
    textAlign: 'start',
    textBaseline: 'alphabetic',
    imageSmoothingEnabled: true,
    save() {
      stack.push({ m: { ...m }, dash: [...dash], fillStyle: ctx.fillStyle, strokeStyle: ctx.strokeStyle, lineWidth: ctx.lineWidth,
        font: ctx.font, textAlign: ctx.textAlign, textBaseline: ctx.textBaseline, imageSmoothingEnabled: ctx.imageSmoothingEnabled });
    },
    restore() {
      const s = stack.pop();
      if (!s) return;
      ({ m, dash } = s);
      for (const key of ['fillStyle', 'strokeStyle', 'lineWidth', 'font', 'textAlign', 'textBaseline', 'imageSmoothingEnabled']) ctx[key] = s[key];
    },
    translate(x, y) {
      m = { ...m, tx: m.tx + m.sx * x, ty: m.ty + m.sy * y };
    },
    scale(a, b = a) {
      m = { ...m, sx: m.sx * a, sy: m.sy * b };
    },
    setTransform(a = 1, b = 0, c = 0, d = 1, e = 0, f = 0) {
      if (b || c) throw new RangeError('svg context: only axis-aligned transforms are supported');
      m = { sx: a, sy: d, tx: e, ty: f };
    },
    resetTransform() {
      m = { sx: 1, sy: 1, tx: 0, ty: 0 };
    },
    setLineDash(d) {
      dash = [...d];
    },
    getLineDash: () => [...dash],
    clearRect() {}, // an SVG starts empty; callers paint their background explicitly
    fillRect(x, y, w, h) {
      parts.push(`<rect ${rectXY(x, y, w, h)} ${paintAttrs('fill', ctx.fillStyle)}/>`);
    },
    strokeRect(x, y, w, h) {
      parts.push(`<rect ${rectXY(x, y, w, h)} fill="none" ${paintAttrs('stroke', ctx.strokeStyle)} stroke-width="${num(ctx.lineWidth * k())}"${dashAttr()}/>`);
    },
    beginPath() {
      path = [];
    },
    moveTo(x, y) {
      path.push(`M${num(X(x))} ${num(Y(y))}`);
    },
    lineTo(x, y) {
      path.push(`L${num(X(x))} ${num(Y(y))}`);
    },
    closePath() {
      path.push('Z');
    },
    rect(x, y, w, h) {
      path.push(`M${num(X(x))} ${num(Y(y))}H${num(X(x + w))}V${num(Y(y + h))}H${num(X(x))}Z`);
    },
    stroke() {
      if (path.length) parts.push(`<path d="${path.join('')}" fill="none" ${paintAttrs('stroke', ctx.strokeStyle)} stroke-width="${num(ctx.lineWidth * k())}"${dashAttr()}/>`);
    },
    fill() {
      if (path.length) parts.push(`<path d="${path.join('')}" ${paintAttrs('fill', ctx.fillStyle)}/>`);
    },
    fillText(text, x, y) {
      parts.push(`<text x="${num(X(x))}" y="${num(Y(y))}" ${fontAttrs(ctx.font, k())} text-anchor="${ANCHOR[ctx.textAlign] ?? 'start'}"` +
        `${BASELINE[ctx.textBaseline] ?? ''} ${paintAttrs('fill', ctx.fillStyle)}>${esc(text)}</text>`);
    },
    measureText(text) {
      if (!measure) throw new TypeError('svg context: measureText needs the `measure` option (a 2-D canvas context)');
      measure.font = ctx.font;
      return measure.measureText(text);
    },
    drawImage(source, x, y, w = source.width, h = source.height) {
      if (arguments.length > 5) throw new RangeError('svg context: drawImage with a source rectangle is not supported');
      const copy = new OffscreenCanvas(source.width, source.height);
      copy.getContext('2d').drawImage(source, 0, 0);
      images.push(copy);
      const pixelated = ctx.imageSmoothingEnabled ? '' : ' image-rendering="optimizeSpeed" style="image-rendering:pixelated"';
      parts.push({ image: images.length - 1, attrs: `${rectXY(x, y, w, h)} preserveAspectRatio="none"${pixelated}` });
    },
    /** The finished SVG document (images are encoded as PNG data URLs here). */
    async toSvg(title = '') {
      const urls = await Promise.all(images.map(pngDataUrl));
      const body = parts.map((p) => (typeof p === 'string' ? p : `<image ${p.attrs} href="${urls[p.image]}"/>`)).join('\n');
      return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve" width="${num(width)}" height="${num(height)}" ` +
        `viewBox="0 0 ${num(width)} ${num(height)}">\n${title ? `<title>${esc(title)}</title>\n` : ''}${body}\n</svg>\n`;
    },
  };
  return ctx;
}

async function pngDataUrl(canvas) {
  const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:image/png;base64,${btoa(bin)}`;
}
