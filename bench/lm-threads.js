// The language-model forward on 1, 2 and all the machine's threads, in one run: prefill tokens per second of the
// wasm module in Node (the threaded build) and, where it is built, of the native core (posenc_bench_lm), for
// stories260K and a model with SmolLM2-135M's shapes (random BF16 weights, written by this script). Thread counts
// are interleaved in each round, so a load that comes and goes weighs on each count alike; each figure is the median
// of the rounds, and the load average is printed with it (this machine is shared: compare ratios within one run).
//
//   node bench/lm-threads.js [--T 512,2048] [--runs 3] [--models stories260K,smollm2-135m] [--write DIR]
// --write DIR: only writes the 135M-shaped model (model.safetensors, config.json, and a tokenizer.json of single
// characters) to DIR, for `npm run model`, and exits.
// Skips stories260K, with a notice, where ../shared/models/stories260K is missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPosenc } from '../web/lib/index.js';
import { REAL_CONFIGS, realSafetensors } from '../tests/js/real-shapes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const SHARED = join(root, '../shared/models/stories260K');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const LENGTHS = arg('--T', '512,2048').split(',').map(Number);
const RUNS = Number(arg('--runs', '3'));
const MODELS = arg('--models', 'stories260K,smollm2-135m').split(',');
const load = () => os.loadavg().map((x) => +x.toFixed(2));

/** SmolLM2-135M's shapes (its config.json), random BF16 weights (tests/js/real-shapes.js), and a tokenizer. */
export function smollm2Files() {
  const { file, config } = realSafetensors(REAL_CONFIGS['smollm2-135m'], { align: true });
  // A tokenizer of single characters (BPE with no merges): the story's characters, then filler up to the vocabulary.
  const vocab = { '<unk>': 0 };
  for (let c = 32; c < 127; c++) vocab[String.fromCharCode(c)] = c - 31;
  vocab['\n'] = 96;
  for (let i = Object.keys(vocab).length; i < 49152; i++) vocab[`<x${i}>`] = i;
  const tokenizer = { version: '1.0', added_tokens: [], normalizer: null, pre_tokenizer: null, post_processor: null, decoder: { type: 'Fuse' },
    model: { type: 'BPE', vocab, merges: [], unk_token: '<unk>' } };
  return { model: file, config, tokenizer };
}

/** Median and best ms of `runs` interleaved rounds of forward(ids) at each thread count. */
function time(lm, ids, counts) {
  const ms = counts.map(() => []);
  for (const n of counts) {
    lm.threads = n;
    lm.forward(ids); // warm-up (and the pool's threads started)
  }
  for (let r = 0; r < RUNS; r++)
    counts.forEach((n, k) => {
      lm.threads = n;
      const t0 = performance.now();
      lm.forward(ids);
      ms[k].push(performance.now() - t0);
    });
  return ms.map((m) => m.sort((a, b) => a - b)).map((m) => ({ median: m[m.length >> 1], best: m[0] }));
}

async function main() {
  if (process.argv.includes('--write')) {
    const dir = arg('--write');
    mkdirSync(dir, { recursive: true });
    const f = smollm2Files();
    writeFileSync(join(dir, 'model.safetensors'), f.model);
    writeFileSync(join(dir, 'config.json'), JSON.stringify(f.config));
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(f.tokenizer));
    console.log(`wrote ${dir}/model.safetensors, config.json, tokenizer.json`);
    return;
  }
  const pe = await loadPosenc();
  const cores = os.cpus().length;
  for (const name of MODELS) {
    let files;
    if (name === 'stories260K') {
      if (!existsSync(join(SHARED, 'stories260K.bin'))) {
        console.log('skipped (no ../shared/models/stories260K here): stories260K');
        continue;
      }
      files = { model: readFileSync(join(SHARED, 'stories260K.bin')), tokenizer: readFileSync(join(SHARED, 'tok512.bin')) };
    } else files = smollm2Files();
    const lm = await pe.loadLanguageModel(files);
    const counts = [...new Set([1, 2, Math.min(cores, lm.threadsMax)])].filter((n) => n <= lm.threadsMax);
    for (const T of LENGTHS) {
      const ids = Int32Array.from({ length: T }, (_, i) => (i * 7919 + 13) % lm.config.vocabSize);
      const before = load();
      const r = time(lm, ids, counts);
      counts.forEach((n, k) => console.log(JSON.stringify({ engine: 'wasm (Node)', model: name, T, threads: n, median_ms: +r[k].median.toFixed(1),
        tokens_per_s: Math.round(T / r[k].median * 1000), speedup: +(r[0].median / r[k].median).toFixed(2), load: [before, load()] })));
    }
    lm.delete();
  }
  // The native core, the same model shapes and lengths, where it is built (cmake --build build/native --target posenc_bench_lm).
  const native = join(root, 'build/native/posenc_bench_lm');
  if (!existsSync(native)) return console.log('skipped: the native bench (build/native/posenc_bench_lm is not built)');
  for (const name of MODELS) {
    if (name === 'stories260K' && !existsSync(join(SHARED, 'stories260K.bin'))) continue;
    const before = load();
    const r = spawnSync(native, [...(name === 'stories260K' ? [] : ['--smollm2-135m']), '--T', LENGTHS.join(','), '--runs', String(RUNS),
      '--threads', [...new Set([1, 2, Math.min(cores, 8)])].join(','), '--scalings', 'none'], { cwd: root, encoding: 'utf8' });
    for (const line of r.stdout.trim().split('\n').filter(Boolean)) console.log(JSON.stringify({ engine: 'native', ...JSON.parse(line), load: [before, load()] }));
  }
}

main();
