// posenc against llama.cpp in wasm (@wllama/wllama) at real sizes, side by side in one run in headless Chromium: models
// with the exact shapes of SmolLM2-135M and Qwen2.5-0.5B (random weights, tests/js/real-shapes.js), written by this
// script as GGUF in F16 and in a Q4_K_M-like mix (llama.cpp's picks: Q4_K, Q6_K for the tied output and the
// use_more_bits layers' attn_v and ffn_down, and its fallbacks Q5_0 / Q8_0 where rows are not whole 256-value blocks),
// both engines reading the SAME file. Per size x format x thread count: load time, memory, and prefill tokens/s at each
// length, each engine in its fastest form on a cross-origin isolated page (COOP + COEP): posenc's threaded module with
// `threads` set, wllama's multi-threaded build with n_threads the same (1 thread: its single-thread mode), flash
// attention on and its default float16 KV cache.
//
// Checked before timing: after a short prompt, wllama's 5 most likely next tokens and their log-probabilities against
// posenc's log-probabilities of the same tokens (llama.cpp rounds activations to 16 or 8 bits in its F16 and quantized
// matmuls, posenc keeps them float32: the bound is CHECK_BOUND), and both must see the same number of prompt tokens.
// The prompt is letters and spaces; the GGUF's vocabulary has one piece per letter (and fillers up to the published
// size), so T - 2 characters are exactly T tokens for both (BOS, the space prefix, one per character).
//
// Timing: a short warm-up each (V8 tiers up both modules), then `rounds` rounds per length, the two engines' order
// alternating; each figure is the median. wllama's time is its createCompletion of one token (the prefill and one
// sampled token; its own prompt time is reported too); posenc's is its forward, which gives every position's NLL (what
// the view needs): the same layers plus T - 1 more rows of the output matrix. Memory: the page's measured memory
// (performance.measureUserAgentSpecificMemory) growth as each engine loads, and posenc's wasm memory growth.
//
//   node bench/lm-wllama.js [--sizes smollm2-135m,qwen2.5-0.5b] [--formats F16,Q4_K_M] [--threads 1,2] [--T 1024,4096]
//                           [--rounds 2] [--layers N] [--out file]      (--layers: only the first N layers, to try it quickly)
// bench/run.js runs it with its defaults as part of the language-model bench (results.lm.wllamaReal).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { chromium } from 'playwright-core';
import { listen } from '../scripts/browser.js';
import { REAL_CONFIGS, realGguf, withLayers } from '../tests/js/real-shapes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const PROMPT = 'the cat sat on the mat';
// |posenc - wllama| log-probability of wllama's top 5 next tokens, per format. llama.cpp rounds activations to float16
// for F16 weights and to 8 bits for the quantized ones (0.1-0.3 nats over the top 10 on small models, TOOLCHAIN.md);
// posenc keeps float32. As a control, the run also reports the same difference for the next token id's log-probability
// (one id off): it must be well above the bound, or the check says nothing.
const CHECK_BOUND = { F16: 0.02, Q4_K_M: 0.25 };
const load = () => os.loadavg().map((x) => +x.toFixed(2));
const median = (xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length ? s[s.length >> 1] : null;
};

/** A SentencePiece vocabulary of `size` pieces: <unk> <s> </s>, the space marker, one piece per letter, then fillers. */
export function letterVocab(size) {
  const tokens = ['<unk>', '<s>', '</s>', '\u2581', ...'abcdefghijklmnopqrstuvwxyz'];
  const types = tokens.map((_, i) => (i === 0 ? 2 : i < 3 ? 3 : 1)), scores = tokens.map(() => 0);
  for (let i = tokens.length; i < size; i++) tokens.push(`<f${i}>`), types.push(1), scores.push(-1000);
  return { tokens, types, scores };
}

/** T - 2 letters and spaces (seeded): T tokens with BOS and the space prefix. */
function promptOf(T) {
  let s = 7, out = '';
  for (let i = 0; i < T - 2; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const k = (s >>> 16) % 32; // a space now and then, never first, last or twice in a row
    out += k >= 26 && i > 0 && i < T - 3 && !out.endsWith(' ') ? ' ' : String.fromCharCode(97 + (k % 26));
  }
  return out;
}

/** In the page (self-contained): one GGUF, both engines, each thread count. */
async function inPage({ file, threads, lengths, rounds, prompts, check }) {
  const now = () => performance.now();
  const measure = async () => {
    if (!performance.measureUserAgentSpecificMemory) return null;
    try { return (await performance.measureUserAgentSpecificMemory()).bytes; } catch { return null; }
  };
  const [{ loadPosenc }, { Wllama }] = await Promise.all([import('/web/lib/index.js'), import('/wllama/esm/index.js')]);
  const bytes = new Uint8Array(await (await fetch(`/gguf/${file}`)).arrayBuffer());
  const pe = await loadPosenc({ build: 'simd' });
  const m0 = await measure(), heap0 = pe.memoryBytes();
  let t0 = now();
  const lm = await pe.loadLanguageModel({ model: bytes });
  const posencLoadMs = now() - t0;
  const m1 = await measure(), heap1 = pe.memoryBytes();
  const maxT = Math.max(...lengths);
  const rows = [];
  for (const n of threads) {
    lm.threads = n;
    const mBefore = await measure();
    const wllama = new Wllama({ default: '/wllama/esm/wasm/wllama.wasm' }, { suppressNativeLog: true });
    t0 = now();
    await wllama.loadModel([new Blob([bytes])], { n_threads: n, n_ctx: maxT + 16, n_batch: maxT, flash_attn: true, n_gpu_layers: 0 });
    const wllamaLoadMs = now() - t0;
    const m2 = await measure();
    const complete = (prompt, logprobs = 0) => wllama.createCompletion({ prompt, max_tokens: 1, temperature: 0, cache_prompt: false, ...(logprobs ? { logprobs } : {}) });
    // the check: wllama's top 5 after the short prompt, posenc's log-probabilities of the same tokens
    const c = await complete(check, 5);
    const ids = Array.from(lm.encode(check));
    const logp = (id) => -lm.forward([...ids, id]).nll[ids.length - 1];
    const top = (c.choices[0].logprobs?.content?.[0]?.top_logprobs ?? []).map(({ id, logprob }) =>
      ({ id, wllama: logprob, posenc: logp(id), shifted: logp((id + 1) % lm.config.vocabSize) }));
    const checked = { promptTokens: [ids.length, c.usage?.prompt_tokens ?? c.timings?.prompt_n], top,
      maxDiff: top.length ? Math.max(...top.map((x) => Math.abs(x.wllama - x.posenc))) : null,
      control: top.length ? Math.max(...top.map((x) => Math.abs(x.wllama - x.shifted))) : null, wllamaThreads: wllama.isMultithread() ? n : 1 };
    // warm-up: a short prompt each
    const warm = lm.encode(prompts[0].slice(0, 62));
    for (let i = 0; i < 2; i++) { lm.forward(warm); await complete(prompts[0].slice(0, 62)); }
    const lengthsOut = [];
    for (const [k, T] of lengths.entries()) {
      const text = prompts[k], tids = lm.encode(text);
      const s = { posenc: [], wllama: [], wllamaPrompt: [] };
      let wllamaTokens = null;
      for (let r = 0; r < rounds; r++)
        for (const name of r % 2 ? ['wllama', 'posenc'] : ['posenc', 'wllama']) {
          const t = now();
          if (name === 'posenc') lm.forward(tids);
          else {
            const res = await complete(text);
            wllamaTokens = res.usage?.prompt_tokens ?? res.timings?.prompt_n;
            if (res.timings?.prompt_ms != null) s.wllamaPrompt.push(res.timings.prompt_ms);
          }
          s[name].push(now() - t);
        }
      lengthsOut.push({ T, tokens: [tids.length, wllamaTokens], samples: s });
    }
    await wllama.exit();
    console.log(`[bench] ${n} thread(s): loads ${Math.round(posencLoadMs)} / ${Math.round(wllamaLoadMs)} ms, check ${checked.maxDiff}; ${lengthsOut.map((l) =>
      `T=${l.T} posenc ${Math.round(l.samples.posenc[0])} ms, wllama ${Math.round(l.samples.wllama[0])} ms`).join('; ')}`); // (progress, before the page ends)
    rows.push({ threads: n, posencThreads: lm.threads, wllamaLoadMs, wllamaMemory: mBefore != null && m2 != null ? m2 - mBefore : null, checked, lengths: lengthsOut });
  }
  lm.delete();
  return { crossOriginIsolated, posencLoadMs, posencMemory: m0 != null && m1 != null ? m1 - m0 : null, posencHeapGrowth: heap1 - heap0, rows };
}

export async function runWllamaBench(log = console.log, { sizes = ['smollm2-135m', 'qwen2.5-0.5b'], formats = ['F16', 'Q4_K_M'], threads = [1, 2],
  lengths = [1024, 4096], rounds = 2, layers = null } = {}) {
  let wllamaDir;
  try {
    wllamaDir = createRequire(import.meta.url).resolve('@wllama/wllama').replace(/esm\/index\.(c?js)$/, '');
  } catch {
    log('\n== real sizes against wllama: skipped (@wllama/wllama is not installed: npm install)');
    return null;
  }
  const version = JSON.parse(readFileSync(join(wllamaDir, 'package.json'), 'utf8')).version;
  const dir = mkdtempSync(join(os.tmpdir(), 'posenc-lm-wllama-'));
  const serve = { '/wllama/': sirv(wllamaDir, { dev: true }), '/gguf/': sirv(dir, { dev: true }), '/': sirv(root, { dev: true }) };
  const site = await listen((req, res) => {
    // cross-origin isolated: both engines may use threads
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html' }); return res.end('<!doctype html><title>posenc and wllama at real sizes</title>'); }
    const prefix = Object.keys(serve).find((p) => req.url.startsWith(p));
    req.url = req.url.slice(prefix.length - 1);
    return serve[prefix](req, res, () => { res.statusCode = 404; res.end(); });
  });
  const userDataDir = mkdtempSync(join(os.tmpdir(), 'posenc-lm-wllama-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--enable-blink-features=ForceEagerMeasureMemory'] });
  const prompts = lengths.map(promptOf);
  const out = [];
  try {
    log(`\n== real sizes against wllama ${version} in headless Chromium ${context.browser()?.version() ?? ''} (cross-origin isolated page)`);
    for (const size of sizes) {
      const config = REAL_CONFIGS[size] && (layers ? withLayers(REAL_CONFIGS[size], layers) : REAL_CONFIGS[size]);
      if (!config) throw new RangeError(`--sizes: ${size} is not one of ${Object.keys(REAL_CONFIGS).join(', ')}`);
      for (const format of formats) {
        const { file, types } = realGguf(config, { format, vocab: letterVocab(config.vocab_size) });
        const name = `${size}-${format}.gguf`;
        writeFileSync(join(dir, name), file);
        const page = await context.newPage();
        page.on('pageerror', (e) => log(`  page error: ${e}`));
        page.on('console', (m) => m.text().startsWith('[bench] ') && log(`  (${size} ${format}, ${m.text().slice(8)})`));
        await page.goto(`${site.url}/`);
        const before = load();
        const r = await page.evaluate(inPage, { file: name, threads, lengths, rounds, prompts, check: PROMPT });
        await page.close();
        rmSync(join(dir, name)); // (hundreds of MB each)
        if (!r.crossOriginIsolated) throw new Error('the bench page is not cross-origin isolated');
        for (const row of r.rows) {
          const ok = row.checked.maxDiff != null && row.checked.maxDiff < CHECK_BOUND[format] && row.checked.promptTokens[0] === row.checked.promptTokens[1]
            && row.lengths.every((l) => l.tokens[0] === l.T && l.tokens[1] === l.T);
          const entry = { size: layers ? `${size} (first ${layers} layers)` : size, format, fileBytes: file.length, types, threads: row.threads, wllamaThreads: row.checked.wllamaThreads,
            posencThreads: row.posencThreads, check: { ok, maxDiff: +row.checked.maxDiff?.toPrecision(2), control: +row.checked.control?.toPrecision(2), promptTokens: row.checked.promptTokens },
            loadMs: { posenc: Math.round(r.posencLoadMs), wllama: Math.round(row.wllamaLoadMs) },
            memoryBytes: { posenc: r.posencMemory, posencHeap: r.posencHeapGrowth, wllama: row.wllamaMemory },
            lengths: row.lengths.map((l) => {
              const p = median(l.samples.posenc), w = median(l.samples.wllama), wp = median(l.samples.wllamaPrompt);
              return { T: l.T, tokens: l.tokens, posencMs: Math.round(p), wllamaMs: Math.round(w), wllamaPromptMs: wp && Math.round(wp),
                posencTokPerS: Math.round((l.T / p) * 1000), wllamaTokPerS: Math.round((l.T / w) * 1000), ratio: ok ? +(w / p).toFixed(2) : null,
                samples: l.samples };
            }),
            load: [before, load()] };
          out.push(entry);
          const mb = (b) => (b == null ? '?' : `${Math.round(b / 2 ** 20)} MB`);
          log(`  ${size} ${format} (${(file.length / 2 ** 20).toFixed(0)} MB file), ${row.threads} thread(s) (wllama ${entry.wllamaThreads}, posenc ${entry.posencThreads}):`
            + ` load posenc ${entry.loadMs.posenc} ms, wllama ${entry.loadMs.wllama} ms; memory posenc ${mb(entry.memoryBytes.posenc)} (heap +${mb(entry.memoryBytes.posencHeap)}),`
            + ` wllama ${mb(entry.memoryBytes.wllama)}; check ${ok ? 'ok' : 'VOID'} (max |d log p| ${entry.check.maxDiff}, bound ${CHECK_BOUND[format]}, one id off ${entry.check.control}; prompt tokens ${entry.check.promptTokens.join('/')})`);
          for (const l of entry.lengths)
            log(`    T=${l.T}: posenc ${l.posencTokPerS} tok/s (${l.posencMs} ms), wllama ${l.wllamaTokPerS} tok/s (${l.wllamaMs} ms; its prompt time ${l.wllamaPromptMs} ms)`
              + `${l.ratio ? `: posenc ${l.ratio}x` : ''}; load average ${entry.load[1][0]}`);
        }
      }
    }
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    await site.close();
  }
  return { wllama: version, checkBound: CHECK_BOUND, rows: out };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const arg = (name, def) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : def);
  const list = (name, def) => arg(name, def).split(',');
  const loadAverageAtStart = load();
  const r = await runWllamaBench(console.log, { sizes: list('sizes', 'smollm2-135m,qwen2.5-0.5b'), formats: list('formats', 'F16,Q4_K_M'),
    threads: list('threads', '1,2').map(Number), lengths: list('T', '1024,4096').map(Number), rounds: Number(arg('rounds', '2')),
    layers: arg('layers', null) && Number(arg('layers')) });
  if (argv.includes('--out') && r)
    writeFileSync(arg('out'), `${JSON.stringify({ date: new Date().toISOString(), loadAverageAtStart, loadAverageAtEnd: load(), ...r }, null, 1)}\n`);
  if (r?.rows.some((x) => !x.check.ok)) process.exitCode = 1;
}
