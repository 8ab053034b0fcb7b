// Exports for pages that run no scripts: the CLI (scripts/export.js) writes an
// animated GIF, PNG and SVG stills from the real sweep; bad arguments fail with
// a message; the page's sweep buttons download a GIF and a labelled SVG, and
// WebM records where MediaRecorder can. GIF frames are decoded by Chromium's
// own ImageDecoder; one is written to build/export/ to look at.
import { jest } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser } from './harness.js';
import { waitFor, waitReady, waitTrained } from './page-helpers.js';

jest.setTimeout(90000);
const root = new URL('../..', import.meta.url).pathname;

// A download's bytes, saved to a temporary file: a browser shared over a connection (one per Jest worker) gives
// the test no local path for it.
async function downloaded(d) {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-download-'));
  try {
    const f = join(dir, d.suggestedFilename());
    await d.saveAs(f);
    return readFileSync(f);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const outDir = join(root, 'build', 'export');
mkdirSync(outDir, { recursive: true });
const browser = useBrowser();

/** Runs the CLI; resolves to {code, stdout, stderr, ms}. */
function cli(args) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'scripts/export.js'), ...args], { cwd: root, env: { ...process.env, INIT_CWD: root } });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - t0 }));
  });
}

/** The block structure of a GIF: header, screen size, loop count, delays and image descriptors, walked to the trailer. */
function gifStructure(buf) {
  const header = buf.subarray(0, 6).toString('latin1');
  const width = buf.readUInt16LE(6), height = buf.readUInt16LE(8), packed = buf[10];
  let p = 13 + (packed & 0x80 ? 3 * (1 << ((packed & 7) + 1)) : 0);
  const globalColours = packed & 0x80 ? 1 << ((packed & 7) + 1) : 0;
  const palette = Array.from({ length: globalColours }, (_, i) => buf.readUIntBE(13 + 3 * i, 3).toString(16).padStart(6, '0'));
  const out = { header, width, height, globalColours, palette, loop: null, delays: [], images: 0, trailer: false };
  const skipSubBlocks = () => {
    while (buf[p] !== 0) p += buf[p] + 1;
    p++;
  };
  while (p < buf.length) {
    const block = buf[p++];
    if (block === 0x3b) {
      out.trailer = p === buf.length;
      break;
    }
    if (block === 0x21) {
      const label = buf[p++];
      if (label === 0xff && buf.subarray(p + 1, p + 12).toString('latin1') === 'NETSCAPE2.0') out.loop = buf.readUInt16LE(p + 14);
      if (label === 0xf9) out.delays.push(buf.readUInt16LE(p + 2) * 10);
      skipSubBlocks();
    } else if (block === 0x2c) {
      out.images++;
      const local = buf[p + 8];
      p += 9 + (local & 0x80 ? 3 * (1 << ((local & 7) + 1)) : 0) + 1; // descriptor, local table, LZW code size
      skipSubBlocks();
    } else {
      throw new Error(`not a GIF block: 0x${block.toString(16)} at byte ${p - 1}`);
    }
  }
  return out;
}

/** Decodes every frame of a GIF with Chromium's ImageDecoder: per frame a pixel hash, distinct colours, share of non-background pixels. */
async function decodeGif(page, bytes, { savePng = -1 } = {}) {
  return page.evaluate(async ({ b64, savePng }) => {
    const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const decoder = new ImageDecoder({ data, type: 'image/gif' });
    await decoder.tracks.ready;
    const track = decoder.tracks.selectedTrack;
    const frames = [];
    let png = null;
    for (let i = 0; i < track.frameCount; i++) {
      const { image } = await decoder.decode({ frameIndex: i });
      const c = new OffscreenCanvas(image.displayWidth, image.displayHeight);
      const ctx = c.getContext('2d');
      ctx.drawImage(image, 0, 0);
      image.close();
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      const colours = new Set();
      let hash = 2166136261, other = 0;
      for (let p = 0; p < d.length; p += 4) {
        const rgb = (d[p] << 16) | (d[p + 1] << 8) | d[p + 2];
        colours.add(rgb);
        if (rgb !== ((d[0] << 16) | (d[1] << 8) | d[2])) other++;
        hash = Math.imul(hash ^ rgb, 16777619);
      }
      frames.push({ width: c.width, height: c.height, colours: colours.size, painted: other / (d.length / 4), hash: hash >>> 0 });
      if (i === savePng) {
        const b = new Uint8Array(await (await c.convertToBlob({ type: 'image/png' })).arrayBuffer());
        png = btoa(Array.from(b, (x) => String.fromCharCode(x)).join(''));
      }
    }
    return { frameCount: track.frameCount, repetitionCount: track.repetitionCount, frames, png };
  }, { b64: Buffer.from(bytes).toString('base64'), savePng });
}

async function blankPage() {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/app/blank.html`); // same origin: a secure context, so ImageDecoder exists
  return page;
}

test('bad arguments exit non-zero with a message naming the problem', () => {
  const cases = [
    [['--encodings', 'rope,wat'], /unknown encoding wat: --encodings takes none, sinusoidal, learned, t5, alibi, rope, shaw/],
    [['--out', 'x.bmp'], /cannot tell the format from --out "x.bmp"/],
    [['--format', 'gif', '--out', 'x.png'], /--format gif does not match --out x.png/],
    [['--frames', '1'], /--frames must be an integer from 2 to 240 \(got "1"\)/],
    [['--train-length', '48'], /--train-length must be one of 16, 32, 64, 128/],
    [['--max-length', '9999'], /--max-length must be an integer from 32 to 512/],
    [['--length', '64', '--out', 'a.gif'], /--length is for PNG and SVG stills/],
    [['--frames', '5', '--out', 'a.png'], /--frames is for animations/],
    [['--max-length', '100', '--factor', '2'], /--max-length 100 is past --factor 2/],
    [['--bogus'], /Unknown option '--bogus'/],
  ];
  for (const [args, message] of cases) {
    const r = spawnSync(process.execPath, [join(root, 'scripts/export.js'), ...args], { encoding: 'utf8' });
    expect({ args, code: r.status }).toEqual({ args, code: 2 });
    expect(r.stderr).toMatch(message);
  }
  const help = spawnSync(process.execPath, [join(root, 'scripts/export.js'), '--help'], { encoding: 'utf8' });
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/--encodings LIST/);
});

test('the CLI writes a looping animated GIF whose frames are drawn from the sweep', async () => {
  const file = join(outDir, 'test-sweep.gif');
  const r = await cli(['--encodings', 'rope,alibi', '--frames', '4', '--size', '480', '--max-length', '128', '--out', file]);
  console.log(`CLI GIF: ${r.stdout.trim()} (${r.ms} ms)`);
  expect(r.stderr).toMatch(/computing lengths: 4\/4/); // progress on stderr
  expect(r.code).toBe(0);
  const bytes = readFileSync(file);
  const g = gifStructure(bytes);
  expect(g).toMatchObject({ header: 'GIF89a', width: 480, loop: 0, images: 4, trailer: true, globalColours: 256 });
  expect(g.delays).toHaveLength(4);
  expect(g.delays.at(-1)).toBeGreaterThan(g.delays[0]); // the last frame holds
  expect(g.palette).toEqual(expect.arrayContaining(['440154', 'fde725'])); // viridis' ends, exact (the maps' colour table)
  const page = await blankPage();
  const d = await decodeGif(page, bytes, { savePng: 1 });
  writeFileSync(join(outDir, 'test-sweep-frame-1.png'), Buffer.from(d.png, 'base64'));
  expect(d.frameCount).toBe(4);
  expect(d.repetitionCount).toBe(Infinity);
  for (const f of d.frames) {
    expect(f.width).toBe(480);
    expect(f.colours).toBeGreaterThan(40); // viridis maps, text, theme colours
    expect(f.painted).toBeGreaterThan(0.2); // not blank: maps, strips and charts over the background
  }
  expect(new Set(d.frames.map((f) => f.hash)).size).toBe(4); // every length looks different
  expect(page.errors).toEqual([]);
});

test('the CLI writes PNG and SVG stills; the SVG keeps its labels as text', async () => {
  const png = join(outDir, 'test-still.png'), svg = join(outDir, 'test-still.svg');
  const [a, b] = [await cli(['--encodings', 'rope,alibi', '--size', '480', '--max-length', '128', '--length', '64', '--out', png]),
    await cli(['--encodings', 'rope,alibi', '--size', '480', '--max-length', '128', '--length', '64', '--out', svg])];
  console.log(`CLI PNG: ${a.stdout.trim()} (${a.ms} ms); SVG: ${b.stdout.trim()} (${b.ms} ms)`);
  expect([a.code, b.code]).toEqual([0, 0]);
  const p = readFileSync(png);
  expect(p.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(p.subarray(12, 16).toString('latin1')).toBe('IHDR');
  expect(p.readUInt32BE(16)).toBe(960); // 480 CSS px at scale 2
  expect(p.readUInt32BE(20)).toBeGreaterThan(400);
  const page = await blankPage();
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const svgEl = doc.documentElement;
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null, root: svgEl.localName, width: svgEl.getAttribute('width'),
      texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
      images: [...doc.querySelectorAll('image')].map((i) => i.getAttribute('href').slice(0, 22)),
      paths: doc.querySelectorAll('path').length,
    };
  }, readFileSync(svg, 'utf8'));
  expect(parsed).toMatchObject({ error: null, root: 'svg', width: '480' });
  expect(parsed.texts).toEqual(expect.arrayContaining(['RoPE', 'ALiBi', 'H1', 'training length']));
  expect(parsed.texts.some((t) => /^T = 64 .*2× the training length$/.test(t))).toBe(true);
  expect(parsed.texts.filter((t) => /^accuracy \d\.\d\d$/.test(t))).toHaveLength(2);
  expect(parsed.images).toEqual(Array(8).fill('data:image/png;base64,')); // 2 encodings x 4 heads
  expect(parsed.paths).toBeGreaterThan(8); // curves, dashed training-length lines: vector
});

test("the page's sweep buttons: GIF downloads an animation, SVG a labelled still, WebM records a video", async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?encodings=rope,alibi&play=0&sweepFactor=4`);
  await waitReady(page);
  await waitTrained(page, 30000);
  const formats = await page.$$eval('.export[data-view=sweep] button[data-format]', (b) => b.map((x) => x.dataset.format));
  expect(formats).toEqual(expect.arrayContaining(['png', 'svg', 'json', 'gif']));

  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }),
    page.click('.export[data-view=sweep] button[data-format=gif]')]);
  expect(download.suggestedFilename()).toBe('posenc-sweep-rope-alibi-32-128.gif');
  const g = gifStructure(await downloaded(download));
  expect(g).toMatchObject({ header: 'GIF89a', width: 720, loop: 0, images: 25, trailer: true }); // the grid from 32 to 128, step 4
  await waitFor(page, () => !document.querySelector('.export[data-view=sweep] button[data-format=gif]').disabled, { what: 'the buttons to come back' });

  const [still] = await Promise.all([page.waitForEvent('download'), page.click('.export[data-view=sweep] button[data-format=svg]')]);
  const svgText = (await downloaded(still)).toString('utf8');
  expect(still.suggestedFilename()).toBe('posenc-sweep-rope-alibi-T32.svg');
  expect(svgText).toMatch(/<text [^>]*>RoPE<\/text>/);

  // bad options reach the core as RangeErrors naming the argument
  await expect(page.evaluate(() => posenc.exportSweep('bmp'))).rejects.toThrow(/format must be one of gif, webm, png, svg/);
  await expect(page.evaluate(() => posenc.exportSweep('gif', { width: 100 }))).rejects.toThrow(/width must be an integer in \[480, 2400\] \(got 100\)/);
  const core = await page.evaluate(async () => {
    const { exportSweep } = await import('/app/lab/animate-export.js');
    const tries = [{ source: 'x' }, { source: () => null, encodings: ['rope', 'nope'] }, { source: () => null, encodings: ['rope'], lengths: [64, 32] }];
    return Promise.all(tries.map((o) => exportSweep(o).then(() => 'no error', (e) => `${e.name}: ${e.message}`)));
  });
  expect(core).toEqual([expect.stringMatching(/^TypeError: source must be a function/),
    expect.stringMatching(/^RangeError: encodings: "nope" is not one of none, sinusoidal/),
    expect.stringMatching(/^RangeError: lengths must increase/)]);

  if (!formats.includes('webm')) {
    console.log('WebM: MediaRecorder cannot record here; the page offers GIF only');
    return;
  }
  const recorded = await page.evaluate(async () => {
    const t0 = performance.now();
    const file = await posenc.exportSweep('webm', { frames: 4, delay: 150, hold: 150 });
    const ms = performance.now() - t0;
    const bytes = new Uint8Array(await file.blob.arrayBuffer());
    return { b64: btoa(Array.from(bytes, (x) => String.fromCharCode(x)).join('')), type: file.blob.type, name: file.name, ms };
  });
  // Play it back on a page without the app's CSP (its default-src keeps blob: media out)
  const player = await browser.newPage();
  const video = await player.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const v = document.createElement('video');
    v.muted = true;
    v.src = URL.createObjectURL(new Blob([bytes], { type: 'video/webm' }));
    await new Promise((resolve, reject) => {
      v.onloadeddata = resolve;
      v.onerror = () => reject(new Error(v.error?.message ?? 'video failed'));
    });
    const duration = v.duration;
    v.currentTime = 0.2; // a seeked frame can be drawn (the frame at loadeddata is not, headless)
    await new Promise((resolve) => (v.onseeked = resolve));
    const c = new OffscreenCanvas(v.videoWidth, v.videoHeight);
    const ctx = c.getContext('2d');
    ctx.drawImage(v, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    for (let p = 0; p < d.length; p += 4) colours.add((d[p] >> 3 << 10) | (d[p + 1] >> 3 << 5) | (d[p + 2] >> 3));
    return { head: Array.from(bytes.subarray(0, 4)), size: bytes.length, width: v.videoWidth, height: v.videoHeight, colours: colours.size, duration };
  }, recorded.b64);
  Object.assign(video, { type: recorded.type, name: recorded.name, ms: recorded.ms });
  console.log(`WebM: ${video.size} bytes, ${video.width}x${video.height}, ${video.duration} s long, ${Math.round(video.ms)} ms to record 4 frames`);
  expect(video.head).toEqual([0x1a, 0x45, 0xdf, 0xa3]); // EBML (Matroska/WebM)
  expect(video).toMatchObject({ type: 'video/webm', width: 720, name: 'posenc-sweep-rope-alibi-32-128.webm' });
  expect(video.colours).toBeGreaterThan(20); // a decoded frame with maps in it, not a blank one
  // 4 frames of 150 ms and a 150 ms hold (750 ms), timed by the recorder's clock: a late frame makes it longer, only a
  // dropped one shorter (before the export waited for the recorder's start, 0.45 s once under load: two frames lost)
  expect(video.duration).toBeGreaterThan(0.7);
  expect(video.duration).toBeLessThan(3);
  expect(page.errors).toEqual([]);
});
