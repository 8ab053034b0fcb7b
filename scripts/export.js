// `npm run export -- --encodings rope,alibi --out sweep.gif`: the explorer's
// length sweep as an animated GIF or WebM, or one frame as PNG or SVG, for
// blogs that run no scripts. Serves the page (scripts/serve.js), opens it in
// headless Chromium with the state in its URL, and calls the page's own
// exporter (web/app/lab/animate-export.js), so every frame comes from the real
// models and the real sweep Worker. Progress goes to stderr.
import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { SCHEMA, toSearch, readState, rejected } from '../web/app/shared/state.js';
import { SWEEP_FORMATS } from '../web/app/lab/animate-export.js';

const USAGE = `usage: npm run export -- [options]          (or: node scripts/export.js [options])

  --encodings LIST     comma-separated, from ${SCHEMA.encodings.values.join(', ')} (default: all)
  --out FILE           where to write (default sweep.gif); the extension picks the format
  --format F           ${SWEEP_FORMATS.join(', ')} (default: from --out's extension)
  --task T             ${SCHEMA.task.values.join(', ')} (default ${SCHEMA.task.def})
  --train-length N     ${SCHEMA.trainLength.values.join(', ')} (default ${SCHEMA.trainLength.def}); other values than 32 train in the browser first
  --max-length N       the sweep's last length (default: train length x 16)
  --factor F           the sweep ends at train length x F: ${SCHEMA.sweepFactor.values.join(', ')}
  --min-length N       the animation's first length (default: the train length)
  --frames N           frames of the animation, 2 to 240 (default: the page's grid of 32 lengths, from min to max length)
  --length N           the length a PNG/SVG still shows (default: max length)
  --size W             width in CSS px, 480 to 2400 (default 720)
  --scale S            pixels per CSS px, 1 to 4 (default 2 for PNG, 1 otherwise)
  --layer L            attention of layer L, 1 to ${SCHEMA.layers.def} (default 1)
  --head H             all, or 1 to ${SCHEMA.heads.def} (default all)
  --delay MS           per frame, 20 to 10000 (default: the whole sweep in about 8 s)
  --hold MS            extra time on the last frame, 0 to 30000 (default 1500)
  --theme T            light or dark (default light)
  --steps N            training steps when no shipped checkpoint matches, ${SCHEMA.steps.min} to ${SCHEMA.steps.max} (default ${SCHEMA.steps.def})
  --seed N             ${SCHEMA.seed.min} to ${SCHEMA.seed.max} (default ${SCHEMA.seed.def})
  --timeout S          give up after S seconds (default 900)
  -h, --help           this text`;

const OPTIONS = Object.fromEntries(['encodings', 'out', 'format', 'task', 'train-length', 'max-length', 'factor', 'min-length', 'frames',
  'length', 'size', 'scale', 'layer', 'head', 'delay', 'hold', 'theme', 'steps', 'seed', 'timeout'].map((k) => [k, { type: 'string' }]));
OPTIONS.help = { type: 'boolean', short: 'h' };

class UsageError extends Error {}
const bad = (message) => {
  throw new UsageError(message);
};

function integer(args, name, lo, hi, def) {
  const raw = args[name];
  if (raw === undefined) return def;
  const v = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(v) || v < lo || v > hi) bad(`--${name} must be an integer from ${lo} to ${hi} (got ${JSON.stringify(raw)})`);
  return v;
}

function oneOf(args, name, values, def) {
  const raw = args[name];
  if (raw === undefined) return def;
  const hit = values.find((v) => String(v) === raw);
  if (hit === undefined) bad(`--${name} must be one of ${values.join(', ')} (got ${JSON.stringify(raw)})`);
  return hit;
}

/** The command line as page state plus export options; throws UsageError with a message for anything wrong. */
export function parse(argv) {
  let args;
  try {
    ({ values: args } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (e) {
    bad(e.message.replace(/\. To specify.*$/s, ''));
  }
  if (args.help) return { help: true };

  const known = SCHEMA.encodings.values;
  const encodings = args.encodings === undefined ? SCHEMA.encodings.def : [...new Set(args.encodings.split(',').map((e) => e.trim()).filter(Boolean))];
  if (!encodings.length) bad(`--encodings needs at least one of ${known.join(', ')}`);
  const unknown = encodings.filter((e) => !known.includes(e));
  if (unknown.length) bad(`unknown encoding${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: --encodings takes ${known.join(', ')}`);

  // format: --format, or the extension of --out
  const ext = args.out === undefined ? null : extname(args.out).slice(1).toLowerCase();
  const format = oneOf(args, 'format', SWEEP_FORMATS, SWEEP_FORMATS.includes(ext) ? ext : args.out === undefined ? 'gif' : null);
  if (!format) bad(`cannot tell the format from --out ${JSON.stringify(args.out)}: use a .${SWEEP_FORMATS.join(', .')} file or --format`);
  if (args.format !== undefined && SWEEP_FORMATS.includes(ext) && ext !== format) bad(`--format ${format} does not match --out ${args.out}`);
  const still = format === 'png' || format === 'svg';

  const task = oneOf(args, 'task', SCHEMA.task.values, SCHEMA.task.def);
  const trainLength = Number(oneOf(args, 'train-length', SCHEMA.trainLength.values.map(String), String(SCHEMA.trainLength.def)));
  const factors = SCHEMA.sweepFactor.values;
  const top = trainLength * Math.max(...factors);
  let factor = args.factor === undefined ? null : Number(oneOf(args, 'factor', factors.map(String)));
  const maxLength = integer(args, 'max-length', trainLength, top, factor ? trainLength * factor : top);
  if (factor && maxLength > trainLength * factor) bad(`--max-length ${maxLength} is past --factor ${factor} x train length ${trainLength} = ${trainLength * factor}`);
  // the page's sweep must reach the last length: the smallest factor that does
  factor ??= factors.find((f) => trainLength * f >= maxLength);
  const minLength = integer(args, 'min-length', 4, maxLength, Math.min(trainLength, maxLength));
  const length = integer(args, 'length', 4, maxLength, maxLength);
  if (!still && args.length !== undefined) bad('--length is for PNG and SVG stills; an animation runs from --min-length to --max-length');
  if (!still && minLength >= maxLength) bad(`--min-length ${minLength} must be below --max-length ${maxLength} for an animation`);
  const frames = integer(args, 'frames', 2, 240, null);
  if (still && frames !== null) bad('--frames is for animations (gif, webm), not for a still');
  const layers = SCHEMA.layers.def, heads = SCHEMA.heads.def;
  const layer = integer(args, 'layer', 1, layers, 1);
  const head = args.head === 'all' ? 0 : integer(args, 'head', 1, heads, 0);

  const state = {
    ...readState(''), encodings, task, trainLength, sweepFactor: factor,
    length: still ? length : trainLength, layer, head, play: false, // (state numbers layers and heads from 1, as here)
    theme: oneOf(args, 'theme', ['light', 'dark'], 'light'),
    steps: integer(args, 'steps', SCHEMA.steps.min, SCHEMA.steps.max, SCHEMA.steps.def),
    seed: integer(args, 'seed', SCHEMA.seed.min, SCHEMA.seed.max, SCHEMA.seed.def),
  };
  const search = toSearch(state);
  const refused = rejected(search);
  if (refused.length) bad(`the page would not accept: ${refused.join('; ')}`);
  const out = resolve(process.env.INIT_CWD ?? process.cwd(), args.out ?? `sweep.${format}`);
  const options = {
    from: minLength, to: maxLength, frames: frames ?? undefined, at: still ? length : undefined,
    width: integer(args, 'size', 480, 2400, undefined), scale: integer(args, 'scale', 1, 4, undefined),
    delay: integer(args, 'delay', 20, 10000, undefined), hold: integer(args, 'hold', 0, 30000, undefined),
  };
  return { format, out, search, options, encodings: state.encodings, timeout: integer(args, 'timeout', 10, 86400, 900) };
}

/** Progress on stderr: one rewritten line on a terminal; otherwise a line per 10%, or every 2 s while training. */
function reporter() {
  const tty = process.stderr.isTTY;
  let lastLine = '', lastTenth = -1, lastTime = 0;
  return (text, fraction) => {
    if (tty) {
      const bar = '#'.repeat(Math.round(fraction * 20)).padEnd(20, '.');
      process.stderr.write(`\r[${bar}] ${text}`.padEnd(lastLine.length));
      lastLine = `\r[${bar}] ${text}`;
      return;
    }
    const tenth = Math.floor(fraction * 10);
    if (text === lastLine || (tenth === lastTenth && Date.now() - lastTime < 2000)) return;
    process.stderr.write(`${Math.round(fraction * 100)}% ${text}\n`);
    [lastLine, lastTenth, lastTime] = [text, tenth, Date.now()];
  };
}

function describe(p) {
  if (p.phase === 'models') return `training in the browser: ${p.waiting.map((w) => `${w.encoding} ${w.steps ? `${w.step}/${w.steps}` : w.status}`).join(', ')}`;
  if (p.phase === 'compute') return `computing lengths: ${p.done}/${p.total}`;
  if (p.phase === 'record') return `recording: frame ${p.done}/${p.total}`;
  return `encoding: ${p.done}/${p.total}`;
}

async function run(job) {
  const started = Date.now();
  const { startServer, launchBrowser } = await import('./browser.js'); // playwright-core: only once the arguments are good
  const server = await startServer();
  const browser = await launchBrowser();
  const report = reporter();
  let timer;
  try {
    const page = await browser.newPage();
    await page.exposeFunction('__posencExportProgress', (p) => report(describe(p), p.fraction));
    report('loading the explorer', 0);
    await page.goto(`${server.url}/app/${job.search}`);
    const work = (async () => {
      for (const end = Date.now() + 60000; !(await page.evaluate(() => document.body.dataset.ready === 'true'));) {
        if (Date.now() > end) throw new Error(`the explorer did not start within 60 s${page.errors.length ? `: ${page.errors.join('; ')}` : ''}`);
        await page.waitForTimeout(100);
      }
      return page.evaluate(async ({ format, options }) => {
        const file = await window.posenc.exportSweep(format, options, (p) => window.__posencExportProgress(p));
        const bytes = new Uint8Array(await file.blob.arrayBuffer());
        let bin = '';
        for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return { base64: btoa(bin), width: file.width, height: file.height, frames: file.frames };
      }, job);
    })();
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`gave up after ${job.timeout} s (--timeout)`)), job.timeout * 1000);
    });
    const file = await Promise.race([work, timeout]);
    const bytes = Buffer.from(file.base64, 'base64');
    writeFileSync(job.out, bytes);
    if (process.stderr.isTTY) process.stderr.write('\n');
    const what = job.format === 'png' || job.format === 'svg' ? 'still' : `${file.frames} frames`;
    console.log(`wrote ${job.out}: ${job.format.toUpperCase()}, ${what}, ${file.width}x${file.height} px, ${(bytes.length / 1024).toFixed(0)} KB, ` +
      `in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    clearTimeout(timer);
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let job;
  try {
    job = parse(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`posenc export: ${e.message}\n(run with --help for every option)`);
    process.exit(2);
  }
  if (job.help) {
    console.log(USAGE);
    process.exit(0);
  }
  try {
    await run(job);
  } catch (e) {
    console.error(`\nposenc export failed: ${e.message}`);
    process.exit(1);
  }
}
