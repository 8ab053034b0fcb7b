// npm run model: a real language model's loss by position over a text, with any HF RoPE scaling.
//
//   npm run --silent model -- --model FILE [--tokenizer FILE] [--config FILE] [--context N] --text FILE
//                             [--scaling JSON] [--extend JSON] [--dynamic call|cached] [--length N] [--threads N] [--json]
//
// --model      a llama2.c .bin (with --tokenizer tokenizer.bin), a GGUF, a .safetensors file (with --config
//              config.json and --tokenizer tokenizer.json), or a model.safetensors.index.json (its shards are
//              read from the same folder)
// --context    the original context the scaling extends (default: the file's; a GGUF's may be its converter's default)
// --scaling    an HF rope_scaling object, e.g. '{"rope_type":"yarn","factor":4,"original_max_position_embeddings":512}';
//              "dynamic" uses the whole input's length as HF does for one forward call
// --dynamic    with a dynamic scaling: "call" (default; as above) or "cached" (as HF generates with a cache: each key
//              keeps the frequencies of the step at which it was cached)
// --extend     a training-free context extension, e.g. '{"method":"rerope","window":256}' ("leak":16 for Leaky ReRoPE;
//              "logn":0 turns off the authors' log-length query scaling); the methods and their parameters are the
//              core's table (contextExtensions() in the library)
// --length N   the first N tokens only
// --threads N  threads the forward runs on (default: the machine's cores, up to the library's cap); any count gives
//              the same numbers
// --json       prints {"tokens": [ids fed to the model], "nll": [...]}, nll[i] = -log p(tokens[i+1] | tokens[0..i]);
//              otherwise a table of perplexity by position range
// Tokens start with BOS where the tokenizer defines one (SentencePiece models get the dummy-prefix space, as
// llama2.c's run does). A bad file or argument exits with status 2 and one line that names the problem.
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { modelWords } from '../web/app/lm/words.js';

const USAGE = 'usage: npm run --silent model -- --model FILE [--tokenizer FILE] [--config FILE] [--context N] --text FILE [--scaling JSON] [--extend JSON] [--dynamic call|cached] [--length N] [--threads N] [--json]';
const fail = (message) => {
  process.stderr.write(`npm run model: ${String(message).replace(/\s+/g, ' ').slice(0, 400)}\n`);
  process.exit(2);
};

function parseArgs(argv) {
  const takes = new Set(['--model', '--tokenizer', '--config', '--context', '--text', '--scaling', '--extend', '--dynamic', '--length', '--threads']);
  const a = {};
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--json') a.json = true;
    else if (k === '--help' || k === '-h') { process.stdout.write(`${USAGE}\n`); process.exit(0); }
    else if (takes.has(k)) {
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) fail(`${k} needs a value (${USAGE})`);
      a[k.slice(2)] = argv[++i];
    } else fail(`unknown argument ${JSON.stringify(k)} (${USAGE})`);
  }
  if (!a.model) fail(`--model is required (${USAGE})`);
  if (!a.text) fail(`--text is required (${USAGE})`);
  const whole = (name, lo, hi) => {
    if (a[name] == null) return undefined;
    const n = Number(a[name]);
    if (!/^\d+$/.test(a[name]) || n < lo || n > hi) fail(`--${name} must be a whole number in [${lo}, ${hi}] (got ${JSON.stringify(a[name])})`);
    return n;
  };
  a.context = whole('context', 1, 1 << 17);
  a.length = whole('length', 2, 1 << 17);
  if (a.threads != null && !/^[1-9]\d*$/.test(a.threads)) fail(`--threads must be a whole number of at least 1 (got ${JSON.stringify(a.threads)})`);
  a.threads = a.threads == null ? undefined : Number(a.threads); // (the module's own limit is checked once it is loaded)
  for (const k of ['scaling', 'extend']) {
    if (a[k] == null) continue;
    try {
      a[k] = JSON.parse(a[k]);
    } catch (e) {
      fail(`--${k} is not valid JSON: ${e.message}`);
    }
  }
  return a;
}

const read = (what, file) => {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (e) {
    return fail(`cannot read the ${what} file ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
};

/** The files loadLanguageModel takes, from the command line's paths. */
function files(a) {
  const f = {};
  if (a.model.endsWith('.index.json')) {
    f.index = read('index', a.model);
    const { weight_map: map } = JSON.parse(new TextDecoder().decode(f.index));
    f.shards = {};
    for (const name of new Set(Object.values(map ?? {}))) if (typeof name === 'string' && !name.includes('/')) f.shards[name] = read('shard', join(dirname(a.model), name));
  } else f.model = read('model', a.model);
  if (a.tokenizer) f.tokenizer = read('tokenizer', a.tokenizer);
  if (a.config) f.config = read('config', a.config);
  return f;
}

/** Perplexity over position ranges: half-context steps, so the training context and each multiple of it are edges. */
function table(nll, context) {
  const step = Math.max(1, Math.floor(context / 2));
  const rows = [];
  for (let lo = 0; lo < nll.length; lo += step) {
    const hi = Math.min(nll.length, lo + step);
    let s = 0;
    for (let i = lo; i < hi; i++) s += nll[i];
    rows.push([`${lo}-${hi}`, (hi / context).toFixed(2), hi - lo, Math.exp(s / (hi - lo)).toFixed(3)]);
  }
  const all = nll.reduce((x, y) => x + y, 0) / nll.length;
  rows.push(['all', (nll.length / context).toFixed(2), nll.length, Math.exp(all).toFixed(3)]);
  const head = ['positions (predicted)', 'end / context', 'tokens', 'perplexity'];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((x, i) => String(x).padStart(w[i])).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const root = new URL('..', import.meta.url).pathname;
  if (!existsSync(join(root, 'web/wasm/posenc-lm-simd.wasm'))) { // the first run builds the modules (minutes, once)
    const r = spawnSync('bash', ['scripts/setup.sh', 'wasm'], { cwd: root, stdio: ['ignore', 2, 2] });
    if (r.status !== 0) fail('the wasm build failed (run bash scripts/setup.sh wasm to see why)');
  }
  const { loadPosenc } = await import('../web/lib/index.js');
  const pe = await loadPosenc();
  const text = new TextDecoder().decode(read('text', a.text));
  let lm;
  try {
    lm = await pe.loadLanguageModel(files(a));
    if (a.context) lm.context = a.context;
    if (a.threads) {
      if (a.threads > lm.threadsMax) fail(`--threads must be a whole number in [1, ${lm.threadsMax}] here (got ${a.threads})`);
      lm.threads = a.threads;
    }
    let tokens = lm.encode(text);
    if (a.length) {
      if (a.length > tokens.length) fail(`--length ${a.length} is more than the ${tokens.length} tokens of the text`);
      tokens = tokens.subarray(0, a.length);
    }
    const { nll } = lm.forward(tokens, {
      ...(a.scaling === undefined ? {} : { scaling: a.scaling }), ...(a.extend ? { extend: a.extend } : {}), ...(a.dynamic ? { dynamic: a.dynamic } : {}),
    });
    if (a.json) process.stdout.write(`${JSON.stringify({ tokens: Array.from(tokens), nll: Array.from(nll) })}\n`);
    else {
      const c = lm.config, d = lm.describe();
      const whence = a.context ? 'set by --context' : lm.contextSource !== 'converter default' ? `the file's, ${lm.contextSource}`
        : `the file's, its converter's default: ${d.suggestedContext ? `suggested ${d.suggestedContext}, since ${d.suggestionReason}` : d.suggestionReason}; correct it with --context`;
      process.stdout.write(`${modelWords(d)}\n${c.layers} layers, ${c.heads}/${c.kvHeads} heads of ${c.headDim}; context ${lm.context} (${whence}); ` +
        `scaling ${a.scaling ? JSON.stringify(a.scaling) : 'none'}${a.dynamic ? ` (dynamic NTK: ${a.dynamic})` : ''}; extension ${a.extend ? JSON.stringify(a.extend) : 'none'}; ${lm.threads} thread${lm.threads === 1 ? '' : 's'}\n` +
        `${tokens.length} tokens\n${table(nll, lm.context)}\n`);
    }
  } catch (e) {
    if (e instanceof TypeError || e instanceof RangeError) fail(e.message);
    throw e;
  } finally {
    lm?.delete();
  }
}

main();
