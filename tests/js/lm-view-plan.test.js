// The pure parts of "Your model, past its context": which addresses and dropped files make a model
// (web/app/lm/sources.js), what is computed and how it is bucketed (web/app/lm/plan.js), and that the
// sentences follow the numbers given (web/app/lm/words.js): swap the numbers and the words swap too.
import { fetchPlan, classifyFiles, hfRepo, SUGGESTED } from '../../web/app/lm/sources.js';
import { MODEL_FORMATS } from '../../web/lib/index.js';
import { planForwards, bucketPerplexity, rangePerplexity, statLengths, maxTimes, lengthFor, scalingBlock, nllKeys, mapsKey, statsKey, findNll, findStats, CHOSEN_EXTRA } from '../../web/app/lm/plan.js';
import { perplexityWords, statsWords } from '../../web/app/lm/words.js';
import { jargonIn } from './plain-words.js';
import { isModelUrl } from '../../web/app/shared/state.js';
import { poolSize, POOL_WEIGHT_BYTES } from '../../web/app/lm/pool.js';

const HF = 'https://huggingface.co';

test('every suggested model has addresses the state accepts and a plan', () => {
  for (const m of SUGGESTED) {
    expect(m.urls.every(isModelUrl)).toBe(true);
    expect(() => fetchPlan(m.urls)).not.toThrow();
  }
});

test('a repository address fetches config, tokenizer and the weights (the index first, else model.safetensors)', () => {
  expect(hfRepo(`${HF}/HuggingFaceTB/SmolLM2-135M`)).toEqual({ repo: 'HuggingFaceTB/SmolLM2-135M', rev: 'main' });
  expect(hfRepo(`${HF}/a/b/tree/v2`)).toEqual({ repo: 'a/b', rev: 'v2' });
  expect(hfRepo(`${HF}/a/b/resolve/main/x.bin`)).toBeNull();
  expect(hfRepo('https://evil.example/a/b')).toBeNull();
  const plan = fetchPlan([`${HF}/HuggingFaceTB/SmolLM2-135M`]);
  expect(plan.map((p) => p.role)).toEqual(['config', 'tokenizer', 'tokenizerConfig', 'index']);
  expect(plan[3].orElse).toEqual({ role: 'model', url: `${HF}/HuggingFaceTB/SmolLM2-135M/resolve/main/model.safetensors` });
  expect(plan[0]).toEqual({ role: 'config', url: `${HF}/HuggingFaceTB/SmolLM2-135M/resolve/main/config.json` });
});

// Comparisons with a format's id ("format === 'gguf'"): what a new format would have to be added to.
const formatBranches = (text) => text.match(new RegExp(`[=!]==?\\s*['"\`](${MODEL_FORMATS.map((f) => f.id).join('|')})['"\`]`, 'g')) ?? [];

test('the fetch plan reads the format table\'s fields: no branch on a format by name', () => {
  expect(formatBranches(fetchPlan.toString())).toEqual([]);
  expect(formatBranches("  if (format === 'gguf') {\n  if (format === 'safetensors' || x) {")).toEqual(["=== 'gguf'", "=== 'safetensors'"]);
});

test('file addresses: a GGUF alone, a .bin with its tokenizer, a .safetensors with its neighbours', () => {
  expect(fetchPlan(['/m/x.gguf'])).toEqual([{ role: 'model', url: '/m/x.gguf' }]);
  expect(() => fetchPlan(['/m/x.gguf', '/m/tok.bin'])).toThrow(/carries its own tokenizer/);
  expect(fetchPlan(['/m/model.bin', '/m/tok512.bin'])).toEqual([{ role: 'tokenizer', url: '/m/tok512.bin' }, { role: 'model', url: '/m/model.bin' }]);
  expect(fetchPlan(['/m/model.bin'])).toEqual([{ role: 'model', url: '/m/model.bin' }]);
  expect(() => fetchPlan(['/m/model.bin', '/m/config.json'])).toThrow(/^a llama2\.c \.bin takes one more address: its tokenizer$/);
  const st = fetchPlan([`${HF}/o/r/resolve/main/model.safetensors`]);
  expect(st.map((p) => [p.role, p.url.split('/').pop(), !!p.optional])).toEqual([['config', 'config.json', false],
    ['tokenizer', 'tokenizer.json', true], ['tokenizerConfig', 'tokenizer_config.json', true], ['model', 'model.safetensors', false]]);
  // a name that says nothing: fetched alone, and its content decides (the library names what it is); not beside others
  expect(fetchPlan(['/m/readme.txt'])).toEqual([{ role: 'model', url: '/m/readme.txt' }]);
  expect(fetchPlan(['https://example.org/download?id=3'])).toEqual([{ role: 'model', url: 'https://example.org/download?id=3' }]);
  expect(() => fetchPlan(['/m/readme.txt', '/m/tok.bin'])).toThrow(/^readme\.txt is not named as a model file posenc reads \(a \.bin \(llama2\.c checkpoint\), a \.gguf \(GGUF\) or a \.safetensors \(Hugging Face safetensors\) file, or a Hugging Face repository address\)/);
  expect(() => fetchPlan([])).toThrow(/no model address/);
});

test('dropped files: roles by name, two .bin files split into model and tokenizer, shards need their index', () => {
  const f = (name, size = 10) => ({ name, size });
  const two = classifyFiles([f('stories260K.bin', 1000), f('tok512.bin', 6)]);
  expect([two.roles.model.name, two.roles.tokenizer.name]).toEqual(['stories260K.bin', 'tok512.bin']);
  const bySize = classifyFiles([f('a.bin', 5), f('b.bin', 500)]);
  expect([bySize.roles.model.name, bySize.roles.tokenizer.name]).toEqual(['b.bin', 'a.bin']);
  const hf = classifyFiles([f('model.safetensors'), f('config.json'), f('tokenizer.json'), f('tokenizer_config.json'), f('README.md')]);
  expect(Object.keys(hf.roles).sort()).toEqual(['config', 'model', 'tokenizer', 'tokenizerConfig']);
  expect(hf.ignored).toEqual(['README.md']);
  const sharded = classifyFiles([f('model-00001-of-00002.safetensors'), f('model-00002-of-00002.safetensors'), f('model.safetensors.index.json'), f('config.json')]);
  expect(sharded.shards.map((x) => x.name)).toHaveLength(2);
  expect(() => classifyFiles([f('model-00001-of-00002.safetensors'), f('model-00002-of-00002.safetensors')])).toThrow(/index\.json/);
  expect(classifyFiles([f('notes.txt')]).roles.model.name).toBe('notes.txt'); // alone: its content decides
  expect(() => classifyFiles([f('notes.txt'), f('a.json')])).toThrow(/^no model file among notes\.txt, a\.json: drop a \.bin \(llama2\.c checkpoint\), a \.gguf \(GGUF\) or a \.safetensors/);
});

test('lengths: the context times 1 to 8 within the passage; statistics at 1, 2, 4, 8 contexts up to the length', () => {
  expect(maxTimes(4503, 512)).toBe(8);
  expect(maxTimes(4503, 2048)).toBe(2);
  expect(maxTimes(300, 512)).toBe(1);
  expect(lengthFor(4, 4503, 512)).toBe(2048);
  expect(lengthFor(1, 300, 512)).toBe(300);
  expect(statLengths(2048, 512)).toEqual([512, 1024, 2048]);
  expect(statLengths(1536, 512)).toEqual([512, 1024, 1536]);
  expect(statLengths(300, 512)).toEqual([300]);
});

test('the plan: five forwards, the chosen scaling\'s first with the maps and its statistics at every stat length; keys find them', () => {
  const s = { type: 'yarn', factor: 4, length: 2048, context: 512, layer: 0 };
  const jobs = planForwards(s);
  expect(jobs.map((j) => [j.type, j.length, j.stats, j.mapLayer])).toEqual([['yarn', 2048, [512, 1024, 2048], 0], ['none', 2048, false, null],
    ['linear', 2048, false, null], ['dynamic', 2048, false, null], ['llama3', 2048, false, null]]);
  expect(jobs[1].scaling).toBeNull();
  expect(jobs[4].scaling).toEqual({ rope_type: 'llama3', factor: 4, low_freq_factor: 1, high_freq_factor: 4 });
  expect(jobs[0].cost / jobs[1].cost).toBeCloseTo(1 + CHOSEN_EXTRA, 9); // (its maps and statistics)
  expect(scalingBlock('yarn', 8)).toEqual({ rope_type: 'yarn', factor: 8 });
  expect(nllKeys(s, 'yarn', 'yarn')).toContain(jobs[0].key);
  expect(mapsKey(s, 'yarn')).toBe(jobs[0].key);
  expect(nllKeys(s, 'none', 'yarn')).toEqual([jobs[1].key]);
  // none does not depend on the factor: its forward is shared between factors
  expect(planForwards({ ...s, factor: 8 })[1].key).toBe(jobs[1].key);
  expect(planForwards({ ...s, factor: 8 })[2].key).not.toBe(jobs[2].key);
  // choosing another scaling reuses the losses already computed for it
  expect(nllKeys({ ...s }, 'linear', 'linear')).toContain(jobs[2].key);
  // dynamic NTK's frequencies follow the length: its statistics at the shorter lengths take a forward each, after the five
  const dyn = planForwards({ ...s, type: 'dynamic' });
  expect(dyn.map((j) => [j.type, j.length, j.stats])).toEqual([['dynamic', 2048, [2048]], ['none', 2048, false], ['linear', 2048, false],
    ['yarn', 2048, false], ['llama3', 2048, false], ['dynamic', 512, [512]], ['dynamic', 1024, [1024]]]);
  expect(statsKey(s, 'dynamic', 512)).toBe(dyn[5].key);
});

test('statistics are found in any forward that measured them at that length, for dynamic NTK only in one over that length', () => {
  const s = { type: 'yarn', factor: 4, length: 2048, context: 512, layer: 0 };
  const at = (n) => ({ length: n, entropy: Float32Array.of(n), sink: Float32Array.of(1 / n) });
  const results = new Map([[planForwards(s)[0].key, { statsByLength: [512, 1024, 2048].map(at) }]]);
  expect(findStats(results, s, 'yarn', 1024).entropy[0]).toBe(1024);
  expect(findStats(results, { ...s, length: 1024, layer: 2 }, 'yarn', 512).entropy[0]).toBe(512); // a shorter length, another layer
  expect(findStats(results, { ...s, factor: 8 }, 'yarn', 512)).toBeNull();
  expect(findStats(results, { ...s, context: 256 }, 'yarn', 512)).toBeNull();
  expect(findStats(results, s, 'linear', 512)).toBeNull();
  const d = { ...s, type: 'dynamic' }, dyn = planForwards(d);
  results.set(dyn[0].key, { statsByLength: [at(2048)] });
  results.set(dyn[5].key, { statsByLength: [at(512)] });
  expect(findStats(results, d, 'dynamic', 2048).entropy[0]).toBe(2048);
  expect(findStats(results, d, 'dynamic', 512).entropy[0]).toBe(512);
  expect(findStats(results, d, 'dynamic', 1024)).toBeNull();
});

test('a shorter length reuses the start of a longer forward, except for dynamic NTK', () => {
  const long = { type: 'yarn', factor: 4, length: 4096, context: 512, layer: 0 };
  const results = new Map(planForwards(long).filter((j) => !j.stats).map((j) => [j.key, { nll: Float32Array.from({ length: 4095 }, (_, i) => i) }]));
  const short = { ...long, length: 1024 };
  expect(Array.from(findNll(results, short, 'none'))).toEqual(Array.from({ length: 1023 }, (_, i) => i));
  expect(findNll(results, short, 'llama3')).toHaveLength(1023);
  expect(findNll(results, short, 'dynamic')).toBeNull();
  expect(findNll(results, { ...short, factor: 8 }, 'yarn')).toBeNull();
  expect(findNll(results, { ...short, factor: 8 }, 'none')).toHaveLength(1023);
  expect(findNll(results, { ...short, context: 256 }, 'none')).toBeNull();
});

test('perplexity by bucket and by range is exp of the mean loss', () => {
  const nll = Float32Array.from({ length: 63 }, (_, i) => (i < 31 ? Math.log(2) : Math.log(8)));
  const b = bucketPerplexity(nll, 2);
  expect(b.map((x) => [x.from, x.to])).toEqual([[1, 32], [32, 64]]);
  expect(b[0].ppl).toBeCloseTo(2, 5);
  expect(b[1].ppl).toBeCloseTo(8, 5);
  expect(rangePerplexity(nll, 1, 32)).toBeCloseTo(2, 5);
  expect(rangePerplexity(nll, 32, 64)).toBeCloseTo(8, 5);
  expect(rangePerplexity(nll, 70, 80)).toBeNull();
});

test('the sentences name the scaling the numbers favour, and change when the numbers do', () => {
  const mk = (inside, past) => Float32Array.from({ length: 2047 }, (_, i) => Math.log(i < 511 ? inside : past));
  const s = { context: 512, length: 2048, factor: 4 };
  const a = perplexityWords({ none: mk(3, 12), linear: mk(20, 25), yarn: mk(3.05, 5) }, s);
  expect(a).toBe('With no scaling, perplexity is 3.00 over the first 512 tokens (the original context) and 12.0 past it, up to token 2,048. ' +
    'Past the context, with factor 4, YaRN does best (5.00) and linear (position interpolation) worst (25.0). Inside the context, linear (position interpolation) moves perplexity ' +
    'the most: 20.0 against 3.00 with none, the price of changing angles the model was trained on.');
  const b = perplexityWords({ none: mk(3, 4), linear: mk(3.02, 25), yarn: mk(3.05, 5) }, s);
  expect(b).toMatch(/no scaling does best \(4\.00\)/);
  expect(b).toMatch(/every scaling computed stays within 5% of no scaling/);
  expect(perplexityWords({ none: mk(3, 3) }, { context: 512, length: 400, factor: 4 })).toMatch(/^At 400 tokens the passage stays within the original context of 512/);
  expect(perplexityWords({ none: mk(3, 3), dynamic: mk(3, 3) }, { context: 512, length: 400, factor: 4 })).toMatch(/its line lies on no scaling's/);
  expect(perplexityWords({ none: mk(3, 3), dynamic: mk(3, 3.5) }, s)).not.toMatch(/lies on/);
  expect(statsWords([{ length: 512, entropy: 2.2, sink: 0.02 }, { length: 2048, entropy: 2.5, sink: 0.005 }], { type: 'yarn', factor: 4 }))
    .toBe('Averaged over layers and heads, with YaRN ×4: attention widens, from about as wide as an even split over 9 tokens at 512 tokens ' +
      'to 12.2 at 2,048 (an even split over all 2,048 would be 2,048; the chart plots the log of these numbers, 2.20 to 2.50); ' +
      'the share of attention on the first token falls from 2.0% to 0.5%.');
  expect(statsWords([{ length: 512, entropy: 2.5, sink: 0.02 }, { length: 2048, entropy: 2.2, sink: 0.0201 }], { type: 'none', factor: 4 }))
    .toMatch(/with no scaling: attention narrows, .* stays near from 2\.0% to 2\.0%/);
  // plain words (issue 38): no "entropy ... nats" in the sentences the reader meets
  for (const p of [[{ length: 512, entropy: 2.2, sink: 0.02 }], [{ length: 512, entropy: 2.2, sink: 0.02 }, { length: 4096, entropy: 2.2, sink: 0.02 }]])
    expect(jargonIn(statsWords(p, { type: 'none', factor: 1 }))).toEqual([]);
});

test('the Workers: one per core, 1 to 4, and one for a model whose float32 weights pass the limit', () => {
  expect([1, 2, 3, 4, 8, 0, undefined].map((c) => poolSize(c, 1e6))).toEqual([1, 2, 3, 4, 4, 1, 1]);
  expect(poolSize(8, POOL_WEIGHT_BYTES)).toBe(4);
  expect(poolSize(8, POOL_WEIGHT_BYTES + 1)).toBe(1); // stories42M (168 MB as float32) gets one
  expect(poolSize(8, NaN)).toBe(1);
});
