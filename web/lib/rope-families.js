// Per-family rules for reading a config.json's RoPE: one row per model family, each
// following HF transformers' newest config class and modeling code for it (the file it
// cites, under src/transformers/models/). rope-config.js asks `familyOf(model_type)`
// for a row and applies it; a model_type that no row names is read with the generic
// (Llama) rules and says so in the notes.
//
// A row may carry:
//   layerTypes(c, n, ctx)  the layer type of each layer, when the config class makes them
//   rope(type, c)          false where the attention applies no RoPE to that layer type
//   ropeByLayer            'no_rope_layers': RoPE per layer from the 0/1 list (1 = RoPE)
//   layout                 'half' (rotate_half on [x1 | x2]) or 'interleaved' (pairs of channels), or (c) => ...
//   slice                  'leading' (first rotary dims rotate, as Llama) or 'trailing' (last ones, as DeepSeek-V4)
//   headDim(c)             the head dim RoPE sees when the family does not read head_dim
//   partialRotaryFactor    the config class's default when the config has none
//   defaultTheta           the config class's default_theta (PreTrainedConfig's is 10000)
//   scalingOn              the one layer type a flat rope_scaling applies to (others get the default rope)
//   softmaxMscale          DeepSeek MLA: the softmax scale is multiplied by mscale(factor, mscale_all_dim)²
//   window(type, c)        the sliding window of a layer type (null: full attention)

const int = (x) => Number.isInteger(x);

// Qwen2-style and Gemma-style sliding-window patterns.
function everyNth(n, p, ctx, key = 'sliding_window_pattern') {
  if (!int(p) || p < 1 || p > 4096) throw new RangeError(`${ctx.path}${key} must be an integer in [1, 4096] (got ${JSON.stringify(p)})`);
  return Array.from({ length: n }, (_, i) => ((i + 1) % p ? 'sliding_attention' : 'full_attention'));
}

// The config's sliding_window, or the config class's default where the key is absent (an explicit null means none).
const windowOf = (c, dflt = null) => (Object.hasOwn(c, 'sliding_window') ? c.sliding_window : dflt);
const slidingWith = (dflt) => (type, c) => (type === 'sliding_attention' && int(windowOf(c, dflt)) ? windowOf(c, dflt) : null);
export const slidingWindow = slidingWith(null);

export const FAMILIES = [
  {
    id: 'llama4', models: ['llama4', 'llama4_text'],
    source: 'llama4/configuration_llama4.py, llama4/modeling_llama4.py',
    reads: 'no_rope_layers (1 = RoPE; default a NoPE layer every no_rope_layer_interval = 4): RoPE layers chunked, NoPE layers full with the attention temperature; interleaved pairs',
    ropeByLayer: 'no_rope_layers', ropeNames: ['chunked_attention', 'full_attention'], nopeQueryScale: 'llama4Temperature',
    layout: 'interleaved',
  },
  {
    id: 'smollm3', models: ['smollm3'],
    source: 'smollm3/configuration_smollm3.py, smollm3/modeling_smollm3.py',
    reads: 'no_rope_layers (1 = RoPE, `self.use_rope = config.no_rope_layers[layer_idx]`; default a NoPE layer every no_rope_layer_interval = 4); default theta 2,000,000',
    ropeByLayer: 'no_rope_layers', defaultTheta: 2e6, layout: 'half',
    layerTypes: (c, n, ctx) => Array.from({ length: n }, (_, i) =>
      (c.use_sliding_window && int(c.sliding_window) && !ctx.ropeFlags[i] ? 'sliding_attention' : 'full_attention')),
    window: (type, c) => (c.use_sliding_window ? slidingWindow(type, c) : null),
  },
  {
    id: 'cohere2', models: ['cohere2'],
    source: 'cohere2/configuration_cohere2.py, cohere2/modeling_cohere2.py',
    reads: 'RoPE on sliding_attention layers only (full_attention layers are NoPE); interleaved pairs; head_dim = hidden_size // num_attention_heads; layer types from sliding_window_pattern (default 4)',
    layerTypes: (c, n, ctx) => everyNth(n, c.sliding_window_pattern ?? c._sliding_window_pattern ?? 4, ctx),
    rope: (type, c) => type === 'sliding_attention' && windowOf(c, 4096) != null,
    headDim: (c) => Math.floor(c.hidden_size / c.num_attention_heads),
    layout: 'interleaved', window: slidingWith(4096),
  },
  {
    id: 'exaone4', models: ['exaone4'],
    source: 'exaone4/configuration_exaone4.py, exaone4/modeling_exaone4.py',
    reads: 'RoPE where `sliding_window is None or is_sliding`: with a sliding window only its layers rotate (global NoPE); without one every layer does; sliding_window_pattern as an int or an "LLLG" string',
    layerTypes: (c, n, ctx) => {
      if (windowOf(c, 4096) == null) return Array(n).fill('full_attention');
      const p = c.sliding_window_pattern ?? 4;
      if (typeof p === 'string') {
        ctx.notes.push(`sliding_window_pattern "${p.slice(0, 16)}" read as its docstring says (L local, G global, repeating, the last layer global); HF's config code only computes an integer pattern, so the hub files carry layer_types`);
        return Array.from({ length: n }, (_, i) => (i < n - 1 && p[i % p.length] === 'L' ? 'sliding_attention' : 'full_attention'));
      }
      return everyNth(n, p, ctx);
    },
    rope: (type, c) => windowOf(c, 4096) == null || type === 'sliding_attention',
    window: slidingWith(4096),
  },
  {
    id: 'olmo3', models: ['olmo3'],
    source: 'olmo3/configuration_olmo3.py (convert_rope_params_to_dict), olmo3/modeling_olmo3.py',
    reads: 'a flat rope_scaling goes to full_attention only; sliding_attention keeps the default rope at rope_theta (default 500,000); three sliding layers to one full',
    layerTypes: (c, n, ctx) => everyNth(n, 4, ctx), scalingOn: 'full_attention', defaultTheta: 5e5, window: slidingWith(4096),
  },
  {
    id: 'gemma3', models: ['gemma3', 'gemma3_text'],
    source: 'gemma3/configuration_gemma3.py (convert_rope_params_to_dict), gemma3/modeling_gemma3.py',
    reads: 'rope_scaling goes to full_attention only (theta rope_theta, default 1,000,000); sliding_attention at rope_local_base_freq (default 10,000); a full layer every sliding_window_pattern (default 6)',
    layerTypes: (c, n, ctx) => everyNth(n, c.sliding_window_pattern ?? 6, ctx), scalingOn: 'full_attention', window: slidingWith(4096),
  },
  {
    id: 'gemma4', models: ['gemma4', 'gemma4_text'],
    source: 'gemma4/configuration_gemma4.py, gemma4/modeling_gemma4.py',
    reads: 'full_attention layers use global_head_dim (default 512) and, by default, proportional RoPE with partial_rotary_factor 0.25; the last layer is full',
    layerTypes: (c, n, ctx) => {
      const t = everyNth(n, c.sliding_window_pattern ?? 6, ctx);
      if (n) t[n - 1] = 'full_attention';
      return t;
    },
    window: slidingWindow,
  },
  {
    id: 'mla', models: ['deepseek_v2', 'deepseek_v3', 'deepseek_v32', 'kimi_k2'],
    source: 'deepseek_v3/modeling_deepseek_v3.py, deepseek_v32/modular_deepseek_v32.py, deepseek_v2/modeling_deepseek_v2.py',
    reads: 'MLA: RoPE on the qk_rope_head_dim (default 64) slice of each head, interleaved (DeepSeek-V3: unless rope_interleave is false; V3.2 always); with a scaled rope_type the softmax scale is multiplied by mscale(factor, mscale_all_dim)²',
    headDim: (c) => c.qk_rope_head_dim ?? 64,
    layout: (c, modelType) => (modelType === 'deepseek_v32' || (c.rope_interleave ?? true) ? 'interleaved' : 'half'),
    softmaxMscale: true,
    layerTypes: (c, n, ctx) => (ctx.modelType === 'deepseek_v32' ? Array(n).fill('deepseek_sparse_attention') : Array(n).fill('full_attention')),
    notes: (c, modelType) => (modelType === 'deepseek_v32' ? ['DeepSeek-V3.2: the sparse-attention indexer rotates its own 64 dims in the half layout; the attention drawn here is the main MLA attention'] : []),
  },
  {
    id: 'deepseek_v4', models: ['deepseek_v4'],
    source: 'deepseek_v4/configuration_deepseek_v4.py, deepseek_v4/modeling_deepseek_v4.py',
    reads: 'the trailing qk_rope_head_dim (64) of head_dim (512) rotate, interleaved; sliding_attention layers use rope_parameters.main (default, rope_theta 10,000), compressed layers rope_parameters.compress (the yarn block at compress_rope_theta 160,000, attention_factor 1); layer types from compress_ratios (0 sliding, 4 compressed sparse, 128 heavily compressed)',
    layout: 'interleaved', slice: 'trailing', custom: 'deepseek_v4',
    window: (type, c) => (type === 'sliding_attention' ? (int(c.sliding_window) ? c.sliding_window : 128) : null),
  },
  {
    id: 'glm', models: ['glm', 'glm4'],
    source: 'glm/modeling_glm.py, glm4/modular_glm4.py (GlmAttention)',
    reads: 'interleaved pairs (cos/sin repeat_interleave, rotate_half on even/odd channels) on the first partial_rotary_factor (default 0.5) of the head',
    layout: 'interleaved', partialRotaryFactor: 0.5,
  },
  {
    id: 'cohere', models: ['cohere'],
    source: 'cohere/modeling_cohere.py',
    reads: 'interleaved pairs (CohereRotaryEmbedding repeat_interleave; rotate_half on even/odd channels); RoPE on every layer',
    layout: 'interleaved',
  },
  {
    id: 'glm4_moe', models: ['glm4_moe'],
    source: 'glm4_moe/modular_glm4_moe.py (gpt_neox apply_rotary_pos_emb)',
    reads: 'the half layout (rotate_half on [x1 | x2]) on the first partial_rotary_factor (default 0.5) of the head',
    layout: 'half', partialRotaryFactor: 0.5,
  },
  {
    id: 'phi3', models: ['phi3'],
    source: 'phi3/configuration_phi3.py, phi3/modeling_phi3.py',
    reads: "original_max_position_embeddings at the top level; rope_type 'su' and 'yarn' renamed to 'longrope'; every layer attends over sliding_window keys when set (Phi3Attention passes config.sliding_window)",
    renameToLongrope: true,
    window: (type, c) => (int(windowOf(c, null)) ? windowOf(c, null) : null),
  },
  {
    id: 'llama4-scaling-beta', models: ['ministral3', 'mistral3', 'mistral4'],
    source: 'ministral3/modeling_ministral3.py',
    reads: 'llama_4_scaling_beta in the rope dict scales the queries by 1 + beta * log(1 + floor(position / original_max_position_embeddings))',
    queryScaleBeta: true,
  },
  {
    id: 'mrope', models: ['qwen2_vl', 'qwen2_5_vl', 'qwen2_vl_text', 'qwen2_5_vl_text', 'qwen3_vl', 'qwen3_vl_text', 'qwen3_vl_moe', 'qwen3_vl_moe_text'],
    source: 'qwen2_vl/modeling_qwen2_vl.py (apply_multimodal_rotary_pos_emb), qwen3_vl/modeling_qwen3_vl.py (apply_interleaved_mrope)',
    reads: "mrope_section splits the pairs among the time, height and width position ids (Qwen3-VL: interleaved, mrope_interleaved); 'mrope' is the default rope",
  },
  {
    id: 'mistral', models: ['mistral'],
    source: 'mistral/configuration_mistral.py, mistral/modular_mistral.py',
    reads: 'every layer attends over sliding_window keys (default 4,096; null: every key), as MistralAttention passes config.sliding_window to the attention',
    window: (type, c) => (int(windowOf(c, 4096)) ? windowOf(c, 4096) : null),
  },
  {
    id: 'generic', models: ['llama', 'mixtral', 'qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe', 'gpt_oss', 'olmo2', 'granite'],
    source: 'llama/modeling_llama.py, modeling_rope_utils.py',
    reads: 'rope_scaling or rope_parameters (nested per layer type when layer_types names them), head_dim (else hidden_size // num_attention_heads), top-level partial_rotary_factor, the half layout',
  },
];

const BY_MODEL = new Map(FAMILIES.flatMap((f) => f.models.map((m) => [m, f])));
const GENERIC = FAMILIES.find((f) => f.id === 'generic');

/** The row of a model_type, and whether it was known. Unknown types get the generic row. */
export function familyOf(modelType) {
  const f = BY_MODEL.get(modelType);
  return f ? { family: f, known: true } : { family: GENERIC, known: false };
}

/** The layout of a family for a config: 'half' or 'interleaved'. */
export function layoutOf(family, c, modelType) {
  const l = family.layout ?? 'half';
  return typeof l === 'function' ? l(c, modelType) : l;
}
