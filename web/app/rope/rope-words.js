// Words and numbers of "Your model's RoPE": token counts as "8,192", or "8k" / "1M" where
// they are exact powers of two (the way context lengths are spoken of); decade ticks as 10³;
// and the one-line explanation of every scale and bound the view shows.

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
const grouped = (x) => String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A count of tokens: "8k" for 8192, "1M" for 2^20, "163,840" otherwise, "6.28" below 1,000. */
export function count(x) {
  if (x == null || !Number.isFinite(x)) return String(x);
  const r = Math.round(x);
  if (Math.abs(x - r) > 1e-9 * Math.max(1, Math.abs(x))) return Math.abs(x) >= 1000 ? grouped(Math.round(x)) : `${+x.toPrecision(3)}`;
  if (r >= 1024 && (r & (r - 1)) === 0 && r <= 2 ** 30) return r >= 2 ** 20 ? `${r / 2 ** 20}M` : `${r / 1024}k`;
  return grouped(r);
}

/** A log-axis tick: decades as 10ⁿ (1 and 10 as themselves). */
export function decade(x) {
  const e = Math.round(Math.log10(x));
  if (Math.abs(x - 10 ** e) > 1e-9 * x) return count(x);
  if (e <= 1) return String(10 ** e);
  return `10${String(e).split('').map((d) => SUPERSCRIPT[d]).join('')}`;
}

/** A context length with how it is known: "16k (inferred)". */
export const context = (c) => (c ? `${count(c.value)}${c.inferred ? ' (inferred)' : ''}` : '?');

// One line per scale and bound, shown on hover and on keyboard focus.
export const TERMS = {
  wavelength: 'Wavelength 2π/θᵢ: how many tokens rotary pair i needs to turn once; a pair slower than the original context never turned fully in training.',
  original: 'Original context: the length the model was pretrained at, before the RoPE scaling.',
  extended: 'Extended context: the length the scaling is meant to reach (max_position_embeddings, or factor × original where the config left it at the original).',
  window: 'Sliding window: these layers attend to at most this many previous tokens, so no query–key distance they see is longer.',
  cosSin: 'cos/sin ×: YaRN and LongRoPE multiply cos and sin by this attention factor, so every q·k logit is multiplied by its square.',
  softmax: 'softmax ×: DeepSeek multiplies the softmax scale 1/√d by mscale(factor, mscale_all_dim)², sharpening attention at long contexts.',
  queries: 'queries ×: the query is multiplied by a factor that grows with its position (Llama 4 NoPE layers, Ministral 3), keeping attention sharp far out.',
  logit: 'Logit scale (× 1/√d): how much larger than the plain 1/√d the attention logits are at a position — cos/sin scale², softmax correction and query scale together.',
  bound: 'q·k bound (RoFormer §3.4.3): an upper bound on q·k for tokens Δ apart, relative to Δ = 0; it falls with Δ — RoPE’s long-distance decay — and the scaling moves where it falls.',
  layout: 'Layout: half rotates dims (i, i + d/2) together (Llama); interleaved rotates neighbours (2i, 2i + 1) (GPT-J, GLM, Cohere, DeepSeek).',
  mrope: 'M-RoPE: each rotary pair turns with one of three position ids — time, height or width of the image or video patch; text tokens give all three the same value.',
  nope: 'NoPE: these layers add no position information at all; attention there depends only on the content of the tokens.',
};
