// Independent float64 references for RoPE frequencies, written from HF
// transformers' modeling_rope_utils.py (newest: _compute_*_parameters) and from
// llama.cpp's ggml rope (ggml_rope_yarn_corr_dims, rope_yarn) — not from this
// project's C++. Each returns { inv: number[], scale } (scale = HF's
// attention_factor / llama.cpp's mscale on cos and sin).

const TWO_PI = 2 * Math.PI;
const arangeExp = (dim, base) => Array.from({ length: dim / 2 }, (_, i) => Math.pow(base, (2 * i) / dim));

export function refDefault(dim, base) {
  return { inv: arangeExp(dim, base).map((p) => 1 / p), scale: 1 };
}

export function refLinear(dim, base, factor) {
  return { inv: refDefault(dim, base).inv.map((x) => x / factor), scale: 1 };
}

// seq_len = max(seq_len, max_position_embeddings); base * ((f*L/M) - (f-1)) ** (dim/(dim-2))
export function refDynamic(dim, base, factor, maxPos, seqLen) {
  const L = Math.max(seqLen ?? maxPos, maxPos);
  return refDefault(dim, base * Math.pow((factor * L) / maxPos - (factor - 1), dim / (dim - 2)));
}

const getMscale = (scale, m = 1) => (scale <= 1 ? 1 : 0.1 * m * Math.log(scale) + 1);

export function refYarn(dim, base, p) {
  const orig = p.original_max_position_embeddings;
  const factor = p.factor ?? p.max_position_embeddings / orig;
  let attention = p.attention_factor;
  if (attention == null) attention = p.mscale && p.mscale_all_dim ? getMscale(factor, p.mscale) / getMscale(factor, p.mscale_all_dim) : getMscale(factor);
  const betaFast = p.beta_fast || 32, betaSlow = p.beta_slow || 1;
  const corr = (rot) => (dim * Math.log(orig / (rot * TWO_PI))) / (2 * Math.log(base));
  let low = corr(betaFast), high = corr(betaSlow);
  if (p.truncate ?? true) { low = Math.floor(low); high = Math.ceil(high); }
  low = Math.max(low, 0);
  high = Math.min(high, dim - 1);
  if (low === high) high += 0.001;
  const pos = arangeExp(dim, base);
  const inv = pos.map((pf, i) => {
    const ramp = Math.min(1, Math.max(0, (i - low) / (high - low)));
    const extra = 1 - ramp;
    return (1 / (factor * pf)) * (1 - extra) + (1 / pf) * extra;
  });
  return { inv, scale: attention, low, high };
}

export function refLongrope(dim, base, p, seqLen) {
  const orig = p.original_max_position_embeddings;
  const factor = p.factor ?? p.max_position_embeddings / orig;
  let attention = p.attention_factor;
  if (attention == null) attention = factor <= 1 ? 1 : Math.sqrt(1 + Math.log(factor) / Math.log(orig));
  const ext = seqLen && seqLen > orig ? p.long_factor : p.short_factor;
  return { inv: arangeExp(dim, base).map((pf, i) => 1 / (ext[i] * pf)), scale: attention };
}

// torch.where(wavelen > low_wl, inv/f, inv), then the medium band (~(wl < high_wl) * ~(wl > low_wl)) smoothed.
export function refLlama3(dim, base, p) {
  const { factor, low_freq_factor: lo, high_freq_factor: hi } = p;
  const old = p.original_max_position_embeddings;
  const lowWl = old / lo, highWl = old / hi;
  const inv = refDefault(dim, base).inv.map((x) => {
    const wl = TWO_PI / x;
    const scaled = wl > lowWl ? x / factor : x;
    const medium = !(wl < highWl) && !(wl > lowWl);
    if (!medium) return scaled;
    const smooth = (old / wl - lo) / (hi - lo);
    return (1 - smooth) * (scaled / factor) + smooth * scaled;
  });
  return { inv, scale: 1 };
}

// rope_angles = int(p * head_dim // 2) pairs at 1/base^(2i/head_dim), zeros after, all / factor.
export function refProportional(headDim, base, prf = 1, factor = 1) {
  const angles = Math.floor((prf * headDim) / 2);
  return { inv: Array.from({ length: headDim / 2 }, (_, i) => (i < angles ? 1 / Math.pow(base, (2 * i) / headDim) / factor : 0)), scale: 1 };
}

// llama.cpp YaRN (ggml_rope_yarn_corr_dims + rope_yarn): freq_scale = 1/factor,
// corr dims floor/ceil always; ramp_mix = (1 - clamp((i - low) / max(0.001, high - low))) * ext_factor;
// mscale = attn_factor * (1 + 0.1 ln(1/freq_scale)) when ext_factor != 0.
export function refLlamaCppYarn(nDims, base, { factor, nCtxOrig, extFactor = 1, attnFactor = 1, betaFast = 32, betaSlow = 1 }) {
  const freqScale = 1 / factor;
  const corr = (rot) => (nDims * Math.log(nCtxOrig / (rot * TWO_PI))) / (2 * Math.log(base));
  const low = Math.max(0, Math.floor(corr(betaFast))), high = Math.min(nDims - 1, Math.ceil(corr(betaSlow)));
  const inv = Array.from({ length: nDims / 2 }, (_, i) => {
    const extrap = Math.pow(base, (-2 * i) / nDims);
    const interp = freqScale * extrap;
    if (extFactor === 0) return interp;
    const y = (i - low) / Math.max(0.001, high - low);
    const mix = (1 - Math.min(1, Math.max(0, y))) * extFactor;
    return interp * (1 - mix) + extrap * mix;
  });
  return { inv, scale: extFactor !== 0 ? attnFactor * (1 + 0.1 * Math.log(1 / freqScale)) : attnFactor };
}

// Query scales as in HF's modeling code (0-based positions).
export const refLlama4Temperature = (p, attnScale = 0.1, floorScale = 8192) => Math.log1p(Math.floor((p + 1) / floorScale)) * attnScale + 1;
export const refLlama4ScalingBeta = (p, beta, orig) => 1 + beta * Math.log(1 + Math.floor(p / orig));
export const refDeepseekSoftmax = (factor, mscaleAllDim) => (mscaleAllDim ? getMscale(factor, mscaleAllDim) ** 2 : 1);

// M-RoPE: which position axis (0 time, 1 height, 2 width) each rotary pair takes, written from
// HF's Qwen2-VL apply_multimodal_rotary_pos_emb (the pairs split by mrope_section, chunk i takes
// axis i % 3) and Qwen3-VL's apply_interleaved_mrope (start from time; for dim 1, 2:
// freqs_t[..., offset:length:3] = freqs[dim][..., offset:length:3], length = section[dim] * 3).
export function refMropeAxes(section, interleaved) {
  const pairs = section.reduce((a, b) => a + b, 0);
  const axis = new Array(pairs).fill(0);
  if (interleaved) {
    for (const [dim, offset] of [[1, 1], [2, 2]])
      for (let j = offset; j < section[dim] * 3; j += 3) axis[j] = dim;
  } else {
    let start = 0;
    section.forEach((len, i) => {
      for (let j = start; j < start + len; j++) axis[j] = i % 3;
      start += len;
    });
  }
  return axis.map((a) => 'thw'[a]);
}
