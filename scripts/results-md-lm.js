// The "RoPE scaling on a real trained model" section of docs/results.md (scripts/results-md.js): the zero-shot table
// that scripts/lm-zero-shot.js measures on stories260K (docs/lm-zero-shot.json), over the page's passage and over
// the model's own samples (its `passages`), and sentences computed from it.

const f2 = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
const band = ([a, b]) => `${a.toLocaleString('en-US')}–${(b - 1).toLocaleString('en-US')}`;
const list = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/** The section's lines, from the table (docs/lm-zero-shot.json); empty without one. */
export function zeroShotSection(t) {
  if (!t?.rows?.length) return [];
  const lines = [], out = (s = '') => lines.push(s);
  const C = t.context, last = t.bands.length - 1, name = (r) => (r.scaling === 'none' ? 'no scaling' : `${t.names[r.scaling]} ×${r.factor}`);
  const none = t.rows.find((r) => r.scaling === 'none');
  const scaled = t.rows.filter((r) => r.scaling !== 'none');
  const factors = [...new Set(scaled.map((r) => r.factor))];
  const row = (s, f) => t.rows.find((r) => r.scaling === s && r.factor === f);

  out('## RoPE scaling on a real trained model, zero shot');
  out();
  out(`The toy models above have 4 rotary pairs and train at T = 32. This table is measured on a language model that learned: ${t.model}, ` +
    `trained with a context of ${C.toLocaleString('en-US')} tokens, over the page's own passage (${t.tokens.toLocaleString('en-US')} tokens, ` +
    `${t.tokens / C}× the context) in one forward per row, with no fine-tuning. Each cell is the perplexity of the tokens at those positions. ` +
    `\`node scripts/lm-zero-shot.js\` remeasures it${t.passages?.rows?.length ? ' with the next table' : ' (about 20 s)'}; the page's model view draws the same forwards live.`);
  out();
  out(`| scaling | factor | ${t.bands.map((b, i) => (i ? `${band(b)} (${b[0] / C}–${b[1] / C}×)` : `${band(b)} (within)`)).join(' | ')} |`);
  out(`|---|---:|${t.bands.map(() => '---:').join('|')}|`);
  for (const r of t.rows) out(`| ${r.scaling === 'none' ? 'none' : t.names[r.scaling]} | ${r.scaling === 'none' ? '—' : `×${r.factor}`} | ${r.ppl.map(f2).join(' | ')} |`);
  out();

  if (none) out(`- With no scaling, perplexity is ${f2(none.ppl[0])} within the context and ${f2(none.ppl[last])} at positions ${band(t.bands[last])}.`);
  const best = scaled.reduce((b, r) => (r.ppl[last] < b.ppl[last] ? r : b), scaled[0]);
  out(`- Lowest at positions ${band(t.bands[last])}: ${name(best)}, ${f2(best.ppl[last])}, and ${f2(best.ppl[0])} within the context` +
    `${none ? ` (no scaling: ${f2(none.ppl[0])})` : ''}.`);
  const pi = factors.map((f) => row('linear', f)).filter(Boolean);
  if (none && pi.length) {
    const worse = pi.filter((r) => r.ppl[0] > none.ppl[0]);
    out(`- Position interpolation (linear) without fine-tuning ${worse.length === pi.length ? 'raises perplexity within the context at every factor' : `raises perplexity within the context at ${worse.length} of ${pi.length} factors`}: ` +
      `${list(pi.map((r) => `${f2(r.ppl[0])} at ×${r.factor}`))}, against ${f2(none.ppl[0])}. It moves positions the model was trained on; Chen et al. fine-tune after interpolating, which this table does not.`);
  }
  // The YaRN paper's zero-shot comparison: YaRN below PI and dynamic NTK at the same factor, past the context.
  const wins = factors.filter((f) => {
    // paper-set: the scalings Peng et al. compare YaRN with
    const y = row('yarn', f), others = ['linear', 'dynamic'].map((s) => row(s, f)).filter(Boolean);
    return y && others.length && others.every((o) => y.ppl[last] < o.ppl[last]);
  });
  out(`- Peng et al. (YaRN) report YaRN's zero-shot perplexity past the context below PI's and dynamic NTK's. Here, at positions ${band(t.bands[last])}, ` +
    `it is lower than both at ${wins.length} of ${factors.length} factors${wins.length ? ` (×${wins.join(', ×')})` : ''}.`);
  out('- Dynamic NTK is applied as HF applies it to one forward over the whole input: its frequencies follow that input\'s length, ' +
    'so they change every position, within the context too. A model generating token by token would see them change as it goes.');
  out('- What this can show: how each scaling changes a real model\'s predictions within and past its context, zero shot. What it cannot: one small model ' +
    `(head_dim ${t.model.match(/heads of (\d+)/)?.[1] ?? '?'}, so few rotary pairs), ${t.passages?.rows?.length ? `one passage in this table (the next has ${t.passages.generator.seeds.length})` : 'one passage'}, and no fine-tuning; Llama-scale models have 64 pairs and are usually fine-tuned after scaling.`);
  out();
  for (const line of passagesSection(t)) out(line);
  return lines;
}

/** Passages where rows a and b ({per}) are in the other order than their means (a.ppl, b.ppl) in band i. */
export const swapsIn = (a, b, i) => a.per.filter((pa, k) => Math.sign(pa[i] - b.per[k][i]) !== Math.sign(a.ppl[i] - b.ppl[i])).length;

/** The multi-passage part's lines (t.passages, scripts/lm-zero-shot.js's measurePassages); empty without it. */
export function passagesSection(t) {
  const p = t?.passages;
  if (!p?.rows?.length) return [];
  const lines = [], out = (s = '') => lines.push(s);
  const C = p.context, n = p.generator.seeds.length, g = p.generator, last = p.bands.length - 1;
  const label = (r) => (r.scaling === 'none' ? 'no scaling' : `${t.names[r.scaling] ?? r.scaling} ×${r.factor}`);
  const row = (s, f) => p.rows.find((r) => r.scaling === s && r.factor === f);
  const seeds = g.seeds.every((x, i) => i === 0 || x === g.seeds[i - 1] + 1) ? `${g.seeds[0]}–${g.seeds.at(-1)}` : g.seeds.join(', ');
  out(`### Over ${n} passages of the model's own text`);
  out();
  out(`One passage is one sample. Here every row is measured again on ${n} passages of ${g.tokens.toLocaleString('en-US')} tokens ` +
    `(${g.tokens / C}× the context) that the model wrote itself, one from each seed ${seeds}. Each starts with BOS; each next token is drawn ` +
    `from the model's softmax at temperature ${g.temperature} (no top-k, no top-p) by one uniform number of posenc's PCG32 (the seed, stream ${g.stream}), ` +
    `inverse CDF over the vocabulary in id order. The model sees a sliding window inside its context: its keys and values are cached, and when ` +
    `its ${g.window.toLocaleString('en-US')} positions are full it restarts from the last ${(g.window / 2).toLocaleString('en-US')} tokens, recomputed at positions ` +
    `0–${(g.window / 2 - 1).toLocaleString('en-US')}, so every token is drawn at a position it was trained at. A BOS it draws stays (it starts a new story, ` +
    'as in its training data, where stories are joined by BOS). The sampler is compiled to WebAssembly, so every machine draws the same tokens from the same seeds; ' +
    'the passages are not stored, only their seeds, their sampler and a fingerprint of each (sha256 of the token ids), which the JSON records and a rerun compares. ' +
    `None of them is the page's passage, a story written for the page. Each cell is the geometric mean over the passages of the band's perplexity ` +
    `(the exponential of the mean log perplexity) and, in brackets, its 95% interval: a percentile bootstrap over passages ` +
    `(${p.interval.resamples.toLocaleString('en-US')} resamples of the ${n} passages). \`node scripts/lm-zero-shot.js\` remeasures both tables` +
    `${p.seconds ? ` (${Math.round(p.seconds.total).toLocaleString('en-US')} s of wall time for this one, on a 2-core machine shared with other work)` : ''}.`);
  out();
  out(`| scaling | factor | ${p.bands.map((b, i) => (i ? `${band(b)} (${b[0] / C}–${b[1] / C}×)` : `${band(b)} (within)`)).join(' | ')} |`);
  out(`|---|---:|${p.bands.map(() => '---:').join('|')}|`);
  for (const r of p.rows) out(`| ${r.scaling === 'none' ? 'none' : t.names[r.scaling] ?? r.scaling} | ${r.scaling === 'none' ? '—' : `×${r.factor}`} | ` +
    `${r.ppl.map((x, i) => `${f2(x)} [${f2(r.lo[i])}–${f2(r.hi[i])}]`).join(' | ')} |`);
  out();
  // how often the order of two rows holds from passage to passage
  const none = row('none', 1), yarn4 = row('yarn', 4);
  if (none && yarn4) {
    out(`- No scaling against YaRN ×4, band by band (${p.bands.map((b) => band(b)).join(', ')}): ` +
      p.bands.map((b, i) => `${f2(none.ppl[i])} against ${f2(yarn4.ppl[i])}, ${swapsIn(none, yarn4, i)} of ${n} passages in the other order`).join('; ') + '.');
  }
  const best = p.bands.map((_, i) => p.rows.reduce((x, r) => (r.ppl[i] < x.ppl[i] ? r : x)));
  out(`- Lowest by band: ${best.map((r, i) => `${band(p.bands[i])}: ${label(r)} (${f2(r.ppl[i])}), lowest on ${
    r.per.filter((pr, k) => p.rows.every((o) => o.per[k][i] >= pr[i])).length} of ${n} passages`).join('; ')}.`);
  // the page's passage against the many: its cell inside the interval or not
  const cells = t.rows.flatMap((r) => { const q = row(r.scaling, r.factor); return q ? r.ppl.slice(0, p.bands.length).map((x, i) => [x, q, i, r]) : []; });
  const outside = cells.filter(([x, q, i]) => x < q.lo[i] || x > q.hi[i]);
  if (cells.length && p.context === t.context) {
    out(`- The page's passage, against these: ${outside.length} of its ${cells.length} cells lie outside the ${n} passages' 95% interval` +
      `${outside.length ? ` (${outside.slice(0, 4).map(([x, q, i]) => `${label(q)} at ${band(p.bands[i])}: ${f2(x)}`).join(', ')}${outside.length > 4 ? ', …' : ''})` : ''}. ` +
      'An interval is where the mean over such passages lies, not where one passage lies: one passage can fall outside it and still be an ordinary one.');
  }
  if (yarn4 && p.bands.length > 1)
    out(`- Past the context, at ${band(p.bands[last])}, YaRN ×4 is ${f2(yarn4.ppl[last])} [${f2(yarn4.lo[last])}–${f2(yarn4.hi[last])}]` +
      `${none ? ` and no scaling ${f2(none.ppl[last])} [${f2(none.lo[last])}–${f2(none.hi[last])}]` : ''}.`);
  out('- Dynamic NTK here is the one-call form (its frequencies follow the whole passage\'s length), as in the table above.');
  out();
  return lines;
}
