// posenc::lm: the model families posenc runs, one row each (lm.hpp's Family). The loaders read a row
// for a family's tensors and GGUF name, the forward for its layer's steps, and the JS library its list
// (through the wasm export lmFamilies): adding a family is one row here plus, where it does something
// new, that step in lm_forward.cpp.
#include "lm_internal.hpp"

namespace posenc::lm {

const std::vector<Family>& families() {
  // arch, name, label, HF model_type values, HF modeling code followed,
  // qkv_bias, qk_norm, pre_norms, post_norms, fused_qkv, fused_gate_up, norm_plus_one, embed_scale, act, attn_scalar,
  // gguf, gguf_layout, gguf_rules {norms_plus_one, nope_every, window_every, window_theta, head_dim_scale}
  static const std::vector<Family> rows = {
      {Arch::Llama, "llama", "Llama", "llama", "llama/modeling_llama.py",  //
       false, QkNorm::None, true, false, false, false, false, false, Activation::SiLU, 0,
       true, RopeLayout::Interleaved, {}},
      {Arch::Qwen2, "qwen2", "Qwen2", "qwen2", "qwen2/modeling_qwen2.py",  //
       true, QkNorm::None, true, false, false, false, false, false, Activation::SiLU, 0,
       true, RopeLayout::Half, {}},
      // sliding_window (every layer): Config::layers' windows
      {Arch::Mistral, "mistral", "Mistral", "mistral", "mistral/modular_mistral.py",  //
       false, QkNorm::None, true, false, false, false, false, false, Activation::SiLU, 0,
       false, RopeLayout::Interleaved, {}},
      {Arch::Qwen3, "qwen3", "Qwen3", "qwen3", "qwen3/modeling_qwen3.py",  //
       false, QkNorm::PerHead, true, false, false, false, false, false, Activation::SiLU, 0,
       true, RopeLayout::Half, {}},
      // no_rope_layers: Config::layers' rope flags
      {Arch::SmolLM3, "smollm3", "SmolLM3", "smollm3", "smollm3/modeling_smollm3.py",  //
       false, QkNorm::None, true, false, false, false, false, false, Activation::SiLU, 0,
       true, RopeLayout::Interleaved, {false, 4, 0, 0, false}},
      {Arch::Olmo2, "olmo2", "OLMo 2", "olmo2", "olmo2/modeling_olmo2.py",  //
       false, QkNorm::Whole, false, true, false, false, false, false, Activation::SiLU, 0,
       true, RopeLayout::Half, {}},
      // sliding_window (every layer): Config::layers' windows; LongRoPE: the config's rope_scaling
      // GGUF: the window on every layer as HF's Phi-3 has it (llama.cpp itself turns Phi-3's window off)
      {Arch::Phi3, "phi3", "Phi-3", "phi3", "phi3/modeling_phi3.py",  //
       false, QkNorm::None, true, false, true, true, false, false, Activation::SiLU, 0,
       true, RopeLayout::Half, {false, 0, 1, 0, false}},
      // layer types (local sliding-window layers at rope_local_base_freq, unscaled; global ones at rope_theta):
      // Config::layers
      {Arch::Gemma3, "gemma3", "Gemma 3", "gemma3_text", "gemma3/modeling_gemma3.py",  //
       false, QkNorm::PerHead, true, true, false, false, true, true, Activation::GeluTanh, 256,
       true, RopeLayout::Half, {true, 0, 6, 10000, true}},
  };
  return rows;
}

const Family& family(Arch a) {
  const auto i = static_cast<std::size_t>(a);
  if (i >= families().size()) range_error("arch", "a family index in [0, " + std::to_string(families().size() - 1) + "]", std::to_string(i));
  return families()[i];
}

const char* arch_name(Arch a) { return family(a).name; }

}  // namespace posenc::lm
