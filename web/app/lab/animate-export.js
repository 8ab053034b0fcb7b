// The length sweep as a file for places that run no scripts: an animated GIF
// (gifenc) or WebM (MediaRecorder) across lengths, or one still frame as PNG
// or SVG. Every frame is drawn from computed results (the sweep Worker's
// attention maps, accuracy and loss) by the same code that draws the page
// (paintMaps, drawChart), with a label per frame and one row per encoding.
//
// No page lookups here: results come from `source`, colours from `theme`, so
// the page, <posenc-explorer> (shadow DOM) and the CLI (scripts/export.js) all
// call exportSweep the same way.
import { paintMaps, curveOptions } from './maps.js';
import { drawChart } from '../shared/chart.js';
import { NAMES } from '../shared/meta.js';
import { createSvgContext } from '../shared/svg-context.js';

export const SWEEP_FORMATS = ['gif', 'webm', 'png', 'svg'];
const MIME = { gif: 'image/gif', webm: 'video/webm', png: 'image/png', svg: 'image/svg+xml' };
const WEBM_TYPES = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'];

/** Theme keys and the CSS custom properties they are read from. */
export const THEME_VARS = { bg: '--bg', fg: '--fg', muted: '--muted', accent: '--accent', loss: '--loss', train: '--train', ok: '--ok',
  untrained: '--untrained', past: '--past', masked: '--masked', grid: '--grid' };

/** A theme from a computed style (getComputedStyle(element) of the page root or a component's host). */
export function themeFromStyle(style) {
  const theme = {};
  for (const [key, name] of Object.entries(THEME_VARS)) theme[key] = style.getPropertyValue(name).trim();
  return checkTheme(theme);
}

function checkTheme(theme) {
  if (!theme || typeof theme !== 'object') throw new TypeError(`theme must be an object with ${Object.keys(THEME_VARS).join(', ')} (see themeFromStyle)`);
  const missing = Object.keys(THEME_VARS).filter((k) => typeof theme[k] !== 'string' || !theme[k]);
  if (missing.length) throw new RangeError(`theme is missing ${missing.join(', ')} (CSS custom properties ${missing.map((k) => THEME_VARS[k]).join(', ')})`);
  return theme;
}

/**
 * Why WebM recording (MediaRecorder on a canvas stream) is not available here, or '' when it is. WebKitGTK's
 * MediaRecorder, for one, offers only MP4, and recorded 0-byte files: the page offers GIF there and says why.
 */
export function webmUnsupportedReason() {
  if (typeof MediaRecorder !== 'function') return 'this browser has no MediaRecorder';
  if (typeof HTMLCanvasElement !== 'function' || typeof HTMLCanvasElement.prototype.captureStream !== 'function') {
    return 'this browser cannot capture a canvas as a video stream';
  }
  if (!WEBM_TYPES.some((t) => MediaRecorder.isTypeSupported(t))) {
    const other = ['video/mp4', 'video/ogg'].filter((t) => MediaRecorder.isTypeSupported(t));
    return `this browser's MediaRecorder cannot record WebM${other.length ? ` (it offers only ${other.join(', ')})` : ''}`;
  }
  return '';
}

/** Is WebM recording available here? */
export const webmSupported = () => !webmUnsupportedReason();

// ---------- options ----------
function int(name, v, lo, hi) {
  if (typeof v !== 'number') throw new TypeError(`${name} must be a number (got ${typeof v})`);
  if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`${name} must be an integer in [${lo}, ${hi}] (got ${v})`);
  return v;
}

function checkOptions(o) {
  if (!o || typeof o !== 'object') throw new TypeError('exportSweep needs an options object');
  if (typeof o.source !== 'function') throw new TypeError('source must be a function (encoding, length, signal) => Promise<result>');
  const format = o.format ?? 'gif';
  if (!SWEEP_FORMATS.includes(format)) throw new RangeError(`format must be one of ${SWEEP_FORMATS.join(', ')} (got ${JSON.stringify(format)})`);
  if (!Array.isArray(o.encodings) || !o.encodings.length) throw new TypeError('encodings must be a non-empty array of encoding names');
  for (const e of o.encodings) {
    if (!(e in NAMES)) throw new RangeError(`encodings: ${JSON.stringify(e)} is not one of ${Object.keys(NAMES).join(', ')}`);
  }
  if (!Array.isArray(o.lengths) || !o.lengths.length) throw new TypeError('lengths must be a non-empty array of sequence lengths');
  o.lengths.forEach((T, i) => {
    int(`lengths[${i}]`, T, 1, 65536);
    if (i && T <= o.lengths[i - 1]) throw new RangeError(`lengths must increase (lengths[${i}] = ${T} after ${o.lengths[i - 1]})`);
  });
  const still = format === 'png' || format === 'svg';
  const at = still ? int('at', o.at ?? o.lengths.at(-1), 1, 65536) : null;
  const frames = still ? 1 : o.lengths.length;
  if (!still && frames < 2) throw new RangeError(`an animation needs at least 2 lengths (got ${frames})`);
  return {
    format, still, at, source: o.source, encodings: o.encodings,
    lengths: still ? [...new Set([...o.lengths.filter((T) => T <= at), at])].sort((a, b) => a - b) : o.lengths,
    range: chartRange(Math.min(o.lengths[0], at ?? Infinity), Math.max(o.lengths.at(-1), at ?? 0)),
    trainLength: int('trainLength', o.trainLength, 1, 65536),
    layer: int('layer', o.layer ?? 0, -1, 63), // -1: each model's own layer and head (state layer 'auto')
    task: typeof o.task === 'string' ? o.task : '',
    width: int('width', o.width ?? 720, 480, 2400),
    scale: int('scale', o.scale ?? (format === 'png' ? 2 : 1), 1, 4),
    delay: int('delay', o.delay ?? Math.max(40, Math.min(1000, Math.round(8000 / frames / 10) * 10)), 20, 10000),
    hold: int('hold', o.hold ?? 1500, 0, 30000),
    theme: checkTheme(o.theme),
    lut: checkLut(o.lut),
    onProgress: typeof o.onProgress === 'function' ? o.onProgress : () => {},
    signal: o.signal ?? null,
    createCanvas: o.createCanvas ?? (() => document.createElement('canvas')), // WebM only: captureStream needs a DOM canvas
  };
}

/** The x range of the charts and the sweep bar (log scale): one length alone gets an octave below it. */
const chartRange = (lo, hi) => [lo < hi ? lo : hi / 2, hi];

function checkLut(lut) {
  if (lut === undefined || lut === null) return null;
  if (!(lut instanceof Uint8Array)) throw new TypeError(`lut must be a Uint8Array of RGB triples (the maps' colour table), got ${lut?.constructor?.name ?? typeof lut}`);
  if (lut.length % 3 || lut.length < 6 || lut.length > 3 * 256) throw new RangeError(`lut must hold 2 to 256 RGB colours (got ${lut.length} bytes)`);
  return lut;
}

function checkResult(r, encoding, T) {
  if (!r || r.length !== T || !Array.isArray(r.bitmaps) || !r.bitmaps.length || !r.status) {
    throw new Error(`source gave no result for ${encoding} at length ${T}`);
  }
  if (!Number.isFinite(r.accuracy) || !Number.isFinite(r.loss)) {
    throw new RangeError(`source gave accuracy ${r.accuracy}, loss ${r.loss} for ${encoding} at length ${T} (not finite)`);
  }
  return r;
}

// ---------- one frame ----------
const FONT = 'system-ui, sans-serif';
const PAD = 12, GAP = 12, HEADER = 66, FOOTER = 28;

function layoutFor(width, rows, heads) {
  const labelW = Math.round(Math.max(100, width * 0.15));
  const chartW = Math.round(Math.max(150, width * 0.26));
  const mapsW = width - 2 * PAD - labelW - chartW - 2 * GAP;
  const map = Math.floor(Math.min(170, (mapsW - 6 * (heads - 1)) / heads));
  const rowH = map + 34;
  return { width, height: HEADER + rows * rowH + FOOTER, rowH, mapsW, chartW, mapsX: PAD + labelW + GAP, chartX: width - PAD - chartW };
}

const times = (T, trainLength) => {
  const x = T / trainLength;
  return Number.isInteger(x) ? String(x) : x.toFixed(x < 10 ? 2 : 1);
};

/** Draws the frame at length `T` (results per encoding, history of [length, accuracy, loss] so far) on a 2-D context. */
function drawFrame(ctx, L, T, results, history, o) {
  const c = o.theme, [lo, hi] = o.range;
  const s = { length: T, trainLength: o.trainLength, layer: o.layer };
  ctx.fillStyle = c.bg;
  ctx.fillRect(0, 0, L.width, L.height);
  ctx.textAlign = 'left';
  // header: the length, in tokens and in training lengths, then what is shown
  ctx.fillStyle = c.fg;
  ctx.font = `bold 19px ${FONT}`;
  ctx.fillText(`T = ${T}  ·  ${times(T, o.trainLength)}× the training length`, PAD, 26);
  const heads = results[0].heads ?? [];
  ctx.fillStyle = c.muted;
  ctx.font = `13px ${FONT}`;
  ctx.fillText([o.task && `${o.task} task`, `trained at T = ${o.trainLength}`,
    o.layer < 0 ? 'attention of each model\'s head that best marks the answer' : `attention of layer ${o.layer + 1}, ${heads.length > 1 ? 'all heads' : `head ${(heads[0] ?? 0) + 1}`}`].filter(Boolean).join('  ·  '), PAD, 46);
  // where this frame sits in the sweep (log scale, as the charts)
  const pos = (v) => PAD + (Math.log(v / lo) / Math.log(hi / lo)) * (L.width - 2 * PAD);
  ctx.fillStyle = c.grid;
  ctx.fillRect(PAD, HEADER - 10, L.width - 2 * PAD, 3);
  ctx.fillStyle = c.accent;
  ctx.fillRect(PAD, HEADER - 10, Math.max(0, pos(T) - PAD), 3);
  if (o.trainLength >= lo && o.trainLength <= hi) {
    ctx.fillStyle = c.train;
    ctx.fillRect(pos(o.trainLength) - 1, HEADER - 14, 2, 11);
  }
  // one row per encoding: name and numbers, attention maps, accuracy and loss against length
  const mapColours = { masked: c.masked, train: c.train, muted: c.muted, status: [c.ok, c.untrained, c.past] };
  const chartColours = { accent: c.accent, loss: c.loss, train: c.train, fg: c.fg, muted: c.muted, grid: c.grid };
  o.encodings.forEach((enc, i) => {
    const y = HEADER + i * L.rowH, r = results[i];
    ctx.fillStyle = c.grid;
    ctx.fillRect(PAD, y, L.width - 2 * PAD, 1);
    ctx.fillStyle = c.fg;
    ctx.font = `bold 15px ${FONT}`;
    ctx.fillText(NAMES[enc], PAD, y + 24);
    ctx.font = `13px ${FONT}`;
    ctx.fillText(`accuracy ${r.accuracy.toFixed(2)}`, PAD, y + 44);
    ctx.fillStyle = c.muted;
    ctx.fillText(`loss ${r.loss.toFixed(2)}`, PAD, y + 62);
    if (r.sequences) ctx.fillText(`${r.measured ? 'measured' : 'live'}, ${r.sequences} seq.`, PAD, y + 80);
    ctx.save();
    ctx.translate(L.mapsX, y + 6);
    paintMaps(ctx, L.mapsW, L.rowH - 12, r, s, mapColours);
    ctx.restore();
    drawChart(ctx, { x: L.chartX + 24, y: y + 8, w: L.chartW - 24, h: L.rowH - 42 }, curveOptions(history[i], s, [lo, hi], chartColours));
  });
  // legend
  const y = L.height - FOOTER / 2 + 4;
  let x = PAD;
  ctx.font = `12px ${FONT}`;
  const item = (draw, text) => {
    draw(x, y);
    ctx.fillStyle = c.muted;
    ctx.fillText(text, x + 16, y);
    x += 16 + ctx.measureText(text).width + 14;
  };
  const swatch = (colour) => (sx, sy) => {
    ctx.fillStyle = colour;
    ctx.fillRect(sx, sy - 8, 12, 6);
  };
  item(swatch(c.ok), 'positions seen in training');
  item(swatch(c.untrained), 'never trained');
  if (o.encodings.includes('learned')) item(swatch(c.past), 'past the learned table');
  item((sx, sy) => {
    ctx.strokeStyle = c.train;
    ctx.setLineDash([3, 2]);
    ctx.beginPath();
    ctx.moveTo(sx, sy - 5);
    ctx.lineTo(sx + 12, sy - 5);
    ctx.stroke();
    ctx.setLineDash([]);
  }, 'training length');
  if (x + ctx.measureText('posenc').width < L.width - PAD) {
    ctx.textAlign = 'right';
    ctx.fillText('posenc', L.width - PAD, y);
    ctx.textAlign = 'left';
  }
}

// ---------- encoders ----------
const tick = () => new Promise((r) => setTimeout(r, 0));
const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => {
    clearTimeout(t);
    reject(signal.reason);
  }, { once: true });
});

/** Every `step`-th pixel of every frame whose colour is not in `skip` (rgb ints), as one RGBA array. */
function samplePixels(frames, skip, max = 1 << 19) {
  const total = frames.reduce((n, f) => n + f.length / 4, 0);
  const step = Math.max(1, Math.floor(total / max));
  const out = new Uint8Array(Math.ceil(total / step) * 4 + 4 * frames.length);
  let n = 0;
  for (const f of frames) {
    for (let p = 0; p < f.length; p += 4 * step) if (!skip.has((f[p] << 16) | (f[p + 1] << 8) | f[p + 2])) out.set(f.subarray(p, p + 4), (n++) * 4);
  }
  return out.subarray(0, n * 4);
}

/**
 * The GIF's one palette: every other colour of the maps' colour table (so the brightest attention, a handful of
 * pixels, keeps its colour instead of going to the nearest frequent one), then the rest fitted to everything else.
 */
function gifPalette(frames, lut, quantize, size = 255) {
  const fixed = [];
  for (let i = 0; lut && i < lut.length / 3; i += 2) fixed.push([lut[3 * i], lut[3 * i + 1], lut[3 * i + 2]]);
  if (lut && lut.length / 3 % 2 === 0) fixed.push([...lut.subarray(lut.length - 3)]); // and the last one
  const skip = new Set(lut ? Array.from({ length: lut.length / 3 }, (_, i) => (lut[3 * i] << 16) | (lut[3 * i + 1] << 8) | lut[3 * i + 2]) : []);
  const sample = samplePixels(frames, skip);
  return [...fixed, ...(sample.length ? quantize(sample, size - fixed.length) : [])];
}

async function encodeGif(frames, w, h, o, progress) {
  // gifenc, bundled into web/vendor/ (the pages use no import map, for a strict CSP); loaded only for a GIF.
  const { GIFEncoder, quantize, applyPalette } = await import('../../vendor/gifenc.js');
  // One global palette for all frames (fitted to a sample of all of them): colours do not flicker between
  // frames and no frame carries a local colour table.
  const colours = gifPalette(frames, o.lut, quantize);
  // After the first frame, pixels that did not change are written as one reserved transparent index over the
  // frame before (disposal 1: leave it in place): long runs of one code, which LZW packs well.
  const clear = colours.length, palette = [...colours, [0, 0, 0]];
  const gif = GIFEncoder();
  let before = null;
  for (let i = 0; i < frames.length; i++) {
    o.signal?.throwIfAborted();
    const last = i === frames.length - 1;
    const index = applyPalette(frames[i], colours);
    const out = before ? index.map((v, p) => (v === before[p] ? clear : v)) : index;
    gif.writeFrame(out, w, h, { palette: i ? undefined : palette, delay: last ? o.delay + o.hold : o.delay, repeat: 0,
      transparent: !!before, transparentIndex: clear, dispose: 1 });
    before = index;
    frames[i] = null; // let it go
    progress('encode', i + 1, frames.length);
    await tick();
  }
  gif.finish();
  return new Blob([gif.bytes()], { type: MIME.gif });
}

async function recordWebm(bitmaps, w, h, o, progress) {
  const mimeType = WEBM_TYPES.find((t) => typeof MediaRecorder === 'function' && MediaRecorder.isTypeSupported(t));
  if (!mimeType) throw new Error('WebM recording (MediaRecorder) is not available in this browser; export a GIF instead');
  const canvas = o.createCanvas();
  canvas.width = w;
  canvas.height = h;
  const ctx = canvas.getContext('2d', { alpha: false }); // opaque frames: a video without an alpha plane
  ctx.drawImage(bitmaps[0], 0, 0);
  // captureStream(0): a video frame only when requestFrame() is called, so each sweep frame is one video frame
  const stream = canvas.captureStream(0);
  const track = stream.getVideoTracks()[0];
  // Chromium has requestFrame() on the track (CanvasCaptureMediaStreamTrack), Firefox on the stream (CanvasCaptureMediaStream)
  const requestFrame = typeof track.requestFrame === 'function' ? () => track.requestFrame()
    : typeof stream.requestFrame === 'function' ? () => stream.requestFrame() : null;
  if (!requestFrame) {
    track.stop();
    throw new Error('WebM recording needs requestFrame() on a canvas stream, which this browser lacks; export a GIF instead');
  }
  const recorder = new MediaRecorder(stream, { mimeType, videoBitsPerSecond: 4e6 });
  const chunks = [];
  recorder.ondataavailable = (ev) => ev.data.size && chunks.push(ev.data);
  const stopped = new Promise((resolve, reject) => {
    recorder.onstop = resolve;
    recorder.onerror = (ev) => reject(ev.error ?? new Error('MediaRecorder failed'));
  });
  // The first frames are drawn once recording has begun: a frame requested before the recorder's start event can
  // be dropped (under load the video then began at the third sweep frame). (At most 1 s: an engine that never
  // fires it records as before.)
  const started = new Promise((resolve) => { recorder.onstart = resolve; });
  recorder.start();
  try {
    await Promise.race([started, sleep(1000, o.signal)]);
    // MediaRecorder timestamps frames by the clock: the frames are played at their speed (the export takes as long as the video).
    for (let i = 0; i < bitmaps.length; i++) {
      ctx.drawImage(bitmaps[i], 0, 0);
      requestFrame();
      progress('record', i + 1, bitmaps.length);
      await sleep(i === bitmaps.length - 1 ? o.delay + o.hold : o.delay, o.signal);
    }
    // one more video frame (a redraw: an unchanged canvas gives none) so the last frame lasts its delay and hold
    ctx.drawImage(bitmaps.at(-1), 0, 0);
    requestFrame();
    await sleep(50, o.signal);
  } finally {
    recorder.stop();
    track.stop();
    bitmaps.forEach((b) => b.close());
  }
  await stopped;
  return new Blob(chunks, { type: MIME.webm });
}

// ---------- the export ----------
/**
 * Renders the sweep and encodes it.
 *
 * options: {source: (encoding, length, signal) => Promise<result>, encodings, lengths (increasing; the frames, or for a
 * still the curve's points), format: 'gif'|'webm'|'png'|'svg', at (stills: the length shown, default the last),
 * trainLength, layer, task, theme (themeFromStyle), lut (the maps' colour table, Uint8Array of RGB: kept exact in
 * the GIF's palette), width (CSS px), scale, delay (ms per frame), hold (ms more on the last frame),
 * onProgress({phase, done, total, fraction}), signal (AbortSignal), createCanvas (WebM)}
 *
 * A result is what the sweep Worker returns: {length, accuracy, loss, bitmaps: ImageBitmap[] (one per head), heads,
 * status}. Returns {blob, name, width, height, frames}.
 */
export async function exportSweep(options) {
  const o = checkOptions(options);
  const { lengths, encodings } = o;
  const drawn = o.still ? 1 : lengths.length;
  // compute (waiting for the source) is most of the work; encoding the rest
  const share = o.format === 'webm' ? 0.3 : o.still ? 0.9 : 0.7;
  const progress = (phase, done, total) => o.onProgress({ phase, done, total,
    fraction: phase === 'compute' ? (done / total) * share : share + (done / total) * (1 - share) });
  const history = encodings.map(() => []);
  const frames = [];
  let L = null, canvas = null, ctx = null, svg = null;
  for (let f = 0; f < lengths.length; f++) {
    o.signal?.throwIfAborted();
    const T = lengths[f];
    const results = await Promise.all(encodings.map(async (enc) => checkResult(await o.source(enc, T, o.signal), enc, T)));
    results.forEach((r, i) => history[i].push({ length: T, accuracy: r.accuracy, loss: r.loss }));
    progress('compute', f + 1, lengths.length);
    if (o.still && T !== o.at) continue;
    // draw now, while the source's bitmaps are certainly open
    L ??= layoutFor(o.width, encodings.length, Math.max(...results.map((r) => r.bitmaps.length)));
    if (!canvas) {
      canvas = new OffscreenCanvas(L.width * o.scale, L.height * o.scale);
      ctx = canvas.getContext('2d', { willReadFrequently: o.format === 'gif' });
    }
    ctx.setTransform(o.scale, 0, 0, o.scale, 0, 0);
    drawFrame(ctx, L, T, results, history, o);
    if (o.format === 'gif') frames.push(ctx.getImageData(0, 0, canvas.width, canvas.height).data);
    else if (o.format === 'webm') frames.push(canvas.transferToImageBitmap());
    else if (o.format === 'svg') {
      svg = createSvgContext(L.width, L.height, { measure: ctx });
      drawFrame(svg, L, T, results, history, o);
    }
  }
  const w = canvas.width, h = canvas.height;
  let blob;
  if (o.format === 'gif') blob = await encodeGif(frames, w, h, o, progress);
  else if (o.format === 'webm') blob = await recordWebm(frames, w, h, o, progress);
  else if (o.format === 'png') blob = await canvas.convertToBlob({ type: MIME.png });
  else blob = new Blob([await svg.toSvg(`posenc length sweep at T = ${o.at}: ${encodings.map((e) => NAMES[e]).join(', ')}`)], { type: MIME.svg });
  progress('encode', 1, 1);
  const span = o.still ? `T${o.at}` : `${lengths[0]}-${lengths.at(-1)}`;
  return { blob, name: `posenc-sweep-${encodings.join('-')}-${span}.${o.format}`, width: w, height: h, frames: drawn };
}
