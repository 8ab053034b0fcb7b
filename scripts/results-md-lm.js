// The "RoPE scaling on a real trained model" section of docs/results.md (scripts/results-md.js): the zero-shot table
// that scripts/lm-zero-shot.js measures on stories260K (docs/lm-zero-shot.json), and sentences computed from it.

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
    '`node scripts/lm-zero-shot.js` remeasures it (about 20 s); the page\'s model view draws the same forwards live.');
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
    `(head_dim ${t.model.match(/heads of (\d+)/)?.[1] ?? '?'}, so few rotary pairs), one passage, and no fine-tuning; Llama-scale models have 64 pairs and are usually fine-tuned after scaling.`);
  out();
  return lines;
}
