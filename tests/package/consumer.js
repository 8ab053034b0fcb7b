// A user's project: the packed tarball installed offline into a new directory, a
// static server for what a bundler wrote, and the RoPE check both the tarball and the
// bundler tests run (float64 reference, straight from the definition).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { listen } from '../../scripts/browser.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));

// Rows at positions from 0 to 10^6 (where float32 angles would be useless), width 64
// (several SIMD lanes, both halves), in both layouts, with and without scaling.
const POSITIONS = [0, 1, 7, 1000, 65536, 1000000];
export const CASES = [
  { length: 6, dim: 64, layout: 'half', positions: POSITIONS },
  { length: 6, dim: 64, layout: 'interleaved', positions: POSITIONS, scaling: { rope_type: 'linear', factor: 4 } },
];
export const X = Array.from(Float32Array.from({ length: 6 * 64 }, (_, i) => Math.sin(0.37 * i + 1) * (1 + (i % 5))));

/** RoPE in float64, straight from the definition: pairs rotated by position * base^(-2i/dim) / factor. */
function ropeReference(x, { length, dim, layout, positions, scaling }) {
  const out = new Float64Array(length * dim);
  const factor = scaling?.factor ?? 1;
  for (let t = 0; t < length; t++) {
    for (let i = 0; i < dim / 2; i++) {
      const angle = positions[t] * (1 / 10000 ** ((2 * i) / dim) / factor);
      const [p, q] = layout === 'half' ? [t * dim + i, t * dim + i + dim / 2] : [t * dim + 2 * i, t * dim + 2 * i + 1];
      out[p] = x[p] * Math.cos(angle) - x[q] * Math.sin(angle);
      out[q] = x[q] * Math.cos(angle) + x[p] * Math.sin(angle);
    }
  }
  return out;
}

// Float32 output of float64-reduced angles: 1e-5 up to position 65536, 1e-4 at 10^6
// (the README's accuracy claim). Returns the worst error seen, for the log.
export function expectRope(values, c) {
  const ref = ropeReference(X, c);
  expect(values).toHaveLength(ref.length);
  let worst = 0;
  values.forEach((v, k) => {
    const err = Math.abs(v - ref[k]);
    worst = Math.max(worst, err);
    const tolerance = c.positions[Math.floor(k / c.dim)] > 65536 ? 1e-4 : 1e-5;
    if (!(err <= tolerance)) throw new Error(`value ${k} (position ${c.positions[Math.floor(k / c.dim)]}): ${v} vs ${ref[k]}`);
  });
  return worst;
}

/**
 * A tiny llama2.c checkpoint (dim 8, 1 layer, 2 heads, vocab 16, tied embeddings) with weights from a fixed
 * formula: enough for the language models' module to run a real forward in a user's build. Self-contained
 * (it is also written into the user's code as text).
 */
export function tinyLlama2c() {
  const [D, F, L, H, KV, V, S] = [8, 16, 1, 2, 2, 16, 16];
  const hd = D / H, kv = KV * hd;
  const n = V * D + L * D + L * D * D + 2 * L * D * kv + L * D * D + L * D + 3 * L * F * D + D + S * hd;
  const bytes = new Uint8Array(28 + 4 * n), view = new DataView(bytes.buffer);
  [D, F, L, H, KV, V, S].forEach((x, i) => view.setInt32(4 * i, x, true));
  for (let i = 0; i < n; i++) view.setFloat32(28 + 4 * i, 0.5 * Math.sin(0.7 * i + 0.3), true);
  return bytes;
}
export const LM_TOKENS = [1, 5, 9, 3, 2, 7, 7, 0];

// The code a user writes, shared by the Node and the bundler checks: RoPE from the page's module, and
// (only when called) a forward of a language model, which loads the language models' module.
export const computeModule = (entry) => `import { loadPosenc } from '${entry}';
const CASES = ${JSON.stringify(CASES)};
const X = Float32Array.from(${JSON.stringify(X)});
export async function compute(build) {
  const pe = await loadPosenc({ build });
  return { build: pe.build, results: CASES.map((c) => Array.from(pe.applyRope(X, c))) };
}
const tinyLlama2c = ${tinyLlama2c.toString()};
export async function lmCheck(build) {
  const pe = await loadPosenc({ build });
  const lm = await pe.loadLanguageModel({ model: tinyLlama2c() });
  try {
    return { build: pe.build, format: lm.config.format, nll: Array.from(lm.forward(${JSON.stringify(LM_TOKENS)}).nll) };
  } finally {
    lm.delete();
  }
}
`;

/** What lmCheck must give: the same forward through this repository's library (same .wasm: the same numbers). */
export async function expectedLm(build) {
  const { loadPosenc } = await import('../../web/lib/index.js');
  const pe = await loadPosenc({ build });
  const lm = await pe.loadLanguageModel({ model: tinyLlama2c() });
  try {
    return Array.from(lm.forward(LM_TOKENS).nll);
  } finally {
    lm.delete();
  }
}

export function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 180000, ...options });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${output}`);
  return output;
}

export const files = (dir) => readdirSync(dir, { recursive: true }).map(String).filter((f) => statSync(join(dir, f)).isFile());

/**
 * `npm pack`, then an offline install into a new project (an empty cache and --offline:
 * installing must need nothing but the tarball). With `tools`, the repository's own
 * installed packages (the bundlers) are linked into the project's node_modules too.
 * Returns {work, project, packed}.
 */
export function packAndInstall({ tools = false } = {}) {
  if (!existsSync(join(root, 'dist/posenc.js'))) run(process.execPath, ['scripts/build-dist.js'], { cwd: root });
  const work = mkdtempSync(join(tmpdir(), 'posenc-package-'));
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root }));
  const project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'posenc-consumer', private: true, type: 'module' }));
  run('npm', ['install', join(work, packed.filename), '--offline', '--no-audit', '--no-fund', '--cache', join(work, 'npm-cache')],
    { cwd: project });
  if (tools) {
    const own = join(root, 'node_modules');
    for (const name of readdirSync(own)) {
      const at = join(project, 'node_modules', name);
      if (name !== 'posenc' && !name.startsWith('.') && !existsSync(at)) symlinkSync(join(own, name), at);
    }
  }
  return { work, project, packed };
}

/** A static server for a directory on a free loopback port: {url, close}. */
export async function serve(dir, setHeaders) {
  const site = await listen(createServer(sirv(dir, { dev: true, setHeaders })));
  return { ...site, url: `${site.url}/` };
}

/**
 * Polls `fn` in the page until it returns something that `done` accepts (default: truthy). After `ms` it throws, with what
 * `fn` last returned (or the evaluate that never answered: a busy or hung page).
 */
export async function poll(page, fn, ms, arg, done = Boolean) {
  let last = 'no answer yet';
  for (const end = Date.now() + ms; Date.now() < end;) {
    const pending = page.evaluate(fn, arg).then((v) => ({ v }), (e) => ({ e }));
    let timer;
    const r = await Promise.race([pending, new Promise((res) => { timer = setTimeout(res, Math.max(1, end - Date.now()), null); })]);
    clearTimeout(timer);
    if (r === null) throw new Error(`poll: the page did not answer an evaluate within ${ms} ms (last seen: ${JSON.stringify(last)})`);
    if (r.e) throw r.e;
    if (done(r.v)) return r.v;
    last = r.v;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`poll: nothing after ${ms} ms (last seen: ${JSON.stringify(last)})`);
}

/** A user's HTML page: `body`, then one module script (or a classic one, with `classic`). */
export const htmlPage = (body, script, { classic = false } = {}) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>posenc in a user's build</title></head>
<body>${body}<script ${classic ? '' : 'type="module" '}src="./${script}"></script></body></html>
`;
