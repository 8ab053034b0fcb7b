// What users ask peers for, from a ropeFromConfig result: the model's RoPE as HF
// `rope_parameters` JSON, and a few lines of PyTorch that rebuild each layer type's
// inv_freq and attention scaling from those parameters (HF's modeling_rope_utils
// formulas, written out). Run as a script, the PyTorch prints the numbers as JSON.

const py = (x) => {
  if (typeof x === 'boolean') return x ? 'True' : 'False';
  if (Array.isArray(x)) return `[${x.map(py).join(', ')}]`;
  if (typeof x === 'number') return Number.isInteger(x) ? `${x}.0` : String(x);
  return JSON.stringify(x);
};
const ident = (s) => s.replace(/[^A-Za-z0-9_]/g, '_');

// HF's dict as a config.json carries it: no keys posenc adds for its core.
function hfDict(lt) {
  const d = { rope_type: lt.ropeType, ...lt.ropeParameters };
  delete d.max_position_embeddings;
  if (d.partial_rotary_factor === 1) delete d.partial_rotary_factor;
  return d;
}

/** The rope_parameters of a ropeFromConfig result, as HF's newest config classes save them. */
export function ropeParametersJson(r) {
  const rope = r.layerTypes.filter((l) => l.rope);
  if (!rope.length) return { rope_parameters: null };
  const keyed = new Map();
  for (const lt of rope) keyed.set(r.family?.id === 'deepseek_v4' ? (lt.layerType === 'sliding_attention' ? 'main' : 'compress') : lt.layerType, hfDict(lt));
  const dicts = [...keyed.values()].map((d) => JSON.stringify(d));
  const out = keyed.size === 1 || dicts.every((d) => d === dicts[0]) ? [...keyed.values()][0] : Object.fromEntries(keyed);
  const json = { rope_parameters: out };
  // Where the family marks RoPE per layer (SmolLM3, Llama 4), the layers without it: no_rope_layers, 1 = RoPE.
  const nope = r.layerTypes.filter((l) => !l.rope).flatMap((l) => l.layers);
  if (nope.length && ['smollm3', 'llama4'].includes(r.family?.id)) {
    const n = r.layerTypes.reduce((a, l) => a + l.layers.length, 0);
    json.no_rope_layers = Array.from({ length: n }, (_, i) => (nope.includes(i) ? 0 : 1));
  }
  return json;
}

// The lines that compute `inv_freq` and `attention_scaling` for one layer type (HF's formulas).
function body(lt, seqLen) {
  const p = lt.ropeParameters;
  const rt = lt.ropeType;
  const L = [];
  const arange = 'torch.arange(0, dim, 2, dtype=torch.float64)';
  const getMscale = 'def get_mscale(scale, m=1.0):\n        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0';
  if (rt === 'proportional') {
    L.push(`head_dim, base, factor = ${lt.headDim}, ${py(p.rope_theta)}, ${py(p.factor ?? 1)}`,
      `angles = int(${py(p.partial_rotary_factor ?? 1)} * head_dim // 2)`,
      'inv_freq = torch.zeros(head_dim // 2, dtype=torch.float64)',
      'inv_freq[:angles] = 1.0 / (base ** (torch.arange(0, 2 * angles, 2, dtype=torch.float64) / head_dim))',
      'inv_freq = inv_freq / factor', 'attention_scaling = 1.0');
    return L;
  }
  L.push(`dim, base = ${lt.rotaryDim}, ${py(p.rope_theta)}`);
  if (rt === 'dynamic') {
    L.push(`factor, max_pos, seq_len = ${py(p.factor)}, ${p.max_position_embeddings}, ${Math.max(seqLen ?? 0, p.max_position_embeddings)}`,
      'base = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))');
  }
  L.push(`inv_freq = 1.0 / (base ** (${arange} / dim))`, 'attention_scaling = 1.0');
  if (rt === 'linear') L.push(`inv_freq = inv_freq / ${py(p.factor)}`);
  if (rt === 'llama3') {
    L.push(`factor, low, high, old = ${py(p.factor)}, ${py(p.low_freq_factor)}, ${py(p.high_freq_factor)}, ${p.original_max_position_embeddings}`,
      'wavelen = 2 * math.pi / inv_freq',
      'scaled = torch.where(wavelen > old / low, inv_freq / factor, inv_freq)',
      'smooth = (old / wavelen - low) / (high - low)',
      'medium = ~(wavelen < old / high) & ~(wavelen > old / low)',
      'inv_freq = torch.where(medium, (1 - smooth) * scaled / factor + smooth * scaled, scaled)');
  }
  if (rt === 'yarn') {
    const orig = p.original_max_position_embeddings;
    const factor = p.factor ?? (p.max_position_embeddings / orig);
    L.push(getMscale,
      `factor, orig = ${py(factor)}, ${orig}`,
      `beta_fast, beta_slow, ext_factor = ${py(p.beta_fast || 32)}, ${py(p.beta_slow || 1)}, ${py(p.ext_factor ?? 1)}`,
      'def corr(rot):\n        return dim * math.log(orig / (rot * 2 * math.pi)) / (2 * math.log(base))',
      (p.truncate ?? true) ? 'low, high = math.floor(corr(beta_fast)), math.ceil(corr(beta_slow))' : 'low, high = corr(beta_fast), corr(beta_slow)',
      'low, high = max(low, 0), min(high, dim - 1)',
      'high = high + 0.001 if low == high else high',
      'ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)',
      'extrapolation = (1 - ramp) * ext_factor',
      'inv_freq = (inv_freq / factor) * (1 - extrapolation) + inv_freq * extrapolation');
    if (p.attention_factor != null) L.push(`attention_scaling = ${py(p.attention_factor)}`);
    else if (p.mscale && p.mscale_all_dim) L.push(`attention_scaling = get_mscale(factor, ${py(p.mscale)}) / get_mscale(factor, ${py(p.mscale_all_dim)})`);
    else L.push('attention_scaling = get_mscale(factor)');
  }
  if (rt === 'longrope') {
    const orig = p.original_max_position_embeddings;
    const long = (seqLen ?? 0) > orig;
    L.push(`orig, factor = ${orig}, ${py(p.factor ?? p.max_position_embeddings / orig)}`,
      `ext = torch.tensor(${py(long ? p.long_factor : p.short_factor)}, dtype=torch.float64)  # ${long ? 'long' : 'short'}_factor: the sequence is ${long ? 'longer' : 'no longer'} than orig`,
      'inv_freq = inv_freq / ext',
      p.attention_factor != null ? `attention_scaling = ${py(p.attention_factor)}` : 'attention_scaling = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(orig))');
  }
  return L;
}

/** A few lines of PyTorch (float64) that rebuild each layer type's inv_freq and attention scaling. */
export function pytorchSnippet(r, { model = r.modelType } = {}) {
  const out = ['# RoPE of ' + (model || 'a pasted config') + ', per layer type, as HF transformers computes it (float64).',
    '# attention_scaling multiplies cos and sin; softmax_mscale2 (DeepSeek) multiplies the softmax scale 1/sqrt(head_dim).',
    'import json', 'import math', 'import torch', '', 'ROPE = {}'];
  for (const lt of r.layerTypes) {
    if (!lt.rope) {
      out.push('', `# ${lt.name}: layers ${lt.layers.join(', ')} have no RoPE (NoPE)`);
      continue;
    }
    const fn = `rope_${ident(lt.name)}`;
    out.push('', '', `def ${fn}():`, `    # ${lt.name}: rope_type ${lt.ropeType}, ${lt.layout} layout, rotary dim ${lt.rotaryDim} of head dim ${lt.headDim}` +
      (lt.slice === 'trailing' ? ' (the trailing dims rotate)' : ''));
    for (const line of body(lt, r.seqLen)) out.push(...line.split('\n').map((l) => `    ${l}`));
    out.push(`    softmax_mscale2 = ${py(lt.softmaxScale)}` + (lt.softmaxScale !== 1 ? '  # (0.1 * mscale_all_dim * ln(factor) + 1) ** 2' : ''),
      '    return inv_freq, attention_scaling, softmax_mscale2', '', '', `ROPE[${JSON.stringify(lt.name)}] = ${fn}()`);
  }
  out.push('', "if __name__ == '__main__':",
    '    print(json.dumps({k: {"inv_freq": v[0].tolist(), "attention_scaling": float(v[1]), "softmax_mscale2": float(v[2])} for k, v in ROPE.items()}))', '');
  return out.join('\n');
}
