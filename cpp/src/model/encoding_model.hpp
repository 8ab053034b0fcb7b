// Internal: the small interface through which the model (model.cpp) calls an
// encoding. One subclass per encoding, in that encoding's own file, next to its core
// function (learned.cpp, t5.cpp, rope_model.cpp, ...); the registry (encodings.cpp) names the
// factory. Every hook has a do-nothing default, so an encoding overrides only what it
// uses. Shapes: B batch, T length, H heads, hd head dim, C d_model; q, k [B, H, T, hd].
//
// The model calls, in order:
//   validate, parameters           config checks; extra parameter count (before any Model exists)
//   add_tensors / add_layer_tensors   its tensors, at their fixed place in the tensor table
//   init_tensors                   after the model's random draws: tensors that start at a constant
//   prepare(T)                     per forward: position tables for length T
//   embed_forward / embed_backward x0 += position(t)  (absolute encodings)
//   qk_forward / qk_backward       q, k of layer l transformed per position (rotary encodings, SSMax)
//   alibi_slope(h)                 a fixed linear distance penalty per head
//   sink(l, h)                     a learned logit in every row's softmax denominator (attention sinks)
//   bias / stream_bias             an additive score bias per head: materialised rows or a
//                                  function of distance for the streaming kernel
//   bias_backward                  gradient of its bias parameters from dS (before the
//                                  1/sqrt(hd) scale), and its share of dq
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "posenc/encoding.hpp"
#include "posenc/kernels.hpp"
#include "posenc/model_config.hpp"

namespace posenc {

// The model's state (model_impl.hpp), which each hook receives: an encoding's file includes it to read and write it;
// this interface, which the model includes, does not, so it stands below the model.
struct ModelImpl;

// Adds a tensor to the table and returns its offset (model.cpp's layout builder). It is
// initialised N(0, init_std) from the model's stream, in table order (init_std 0: zeros).
using AddTensor =
    std::function<std::size_t(const std::string& name, std::vector<int> shape, bool decay, float init_std)>;

class EncodingModel {
 public:
  explicit EncodingModel(const ModelConfig& c) : cfg(c) {}
  virtual ~EncodingModel() = default;

  // --- config and parameters (cfg may be invalid before validate() returns)
  virtual void validate() const {}
  virtual uint64_t global_parameters() const { return 0; }  // tensors before the blocks
  virtual uint64_t layer_parameters() const { return 0; }   // per block
  virtual void add_tensors(const AddTensor&) {}             // after wte
  virtual void add_layer_tensors(const AddTensor&, int /*layer*/, const std::string& /*prefix "h<l>."*/) {}
  // After init_weights' draws (which an encoding tensor added with init_std 0 does not consume).
  virtual void init_tensors(ModelImpl&) {}

  // --- per forward
  // Refuses lengths it cannot run (RangeError), before any work.
  virtual void check_length(int /*T*/) const {}
  virtual bool accepts_rope_scaling() const { return false; }
  // Tables for length T; `opt.rope_scaling` only reaches encodings that accept it.
  virtual void prepare(ModelImpl&, int /*T*/, const ForwardOptions&) {}

  // --- embedding: x [C] of token (b, t) += position
  virtual bool adds_position() const { return false; }
  virtual void embed_forward(ModelImpl&, int /*b*/, int /*t*/, float* /*x*/) {}
  virtual void embed_backward(ModelImpl&, int /*b*/, int /*t*/, const float* /*dx*/) {}

  // --- q, k [B, H, T, hd] of layer l, in place
  virtual void qk_forward(ModelImpl&, int /*l*/, float* /*q*/, float* /*k*/) {}
  virtual void qk_backward(ModelImpl&, int /*l*/, float* /*dq*/, float* /*dk*/) {}

  // --- score biases, per head h of layer l
  virtual float alibi_slope(int /*h*/) const { return 0.0f; }
  // The sink logit of head h in layer l (kernels::attention_scores_softmax), or -inf for none. Its gradient is
  // -sum_ij dS_ij (bias_backward's dS): adding c to every logit, the sink's too, changes no probability.
  virtual float sink(ModelImpl&, int /*l*/, int /*h*/) { return -std::numeric_limits<float>::infinity(); }
  // Floats of Acts::bias / Acts::rel scratch it needs (streaming: without [T, T]).
  virtual uint64_t bias_floats(int /*T*/, bool /*streaming*/) const { return 0; }
  virtual uint64_t rel_floats(int /*T*/) const { return 0; }
  // Materialised: bias rows [Tq, T] of the queries q0.. of sequence b (q: that head's [T, hd],
  // rotated), or nullptr for none. Valid until the next call.
  virtual const float* bias(ModelImpl&, int /*l*/, int /*h*/, int /*b*/, int /*q0*/, const float* /*q*/) {
    return nullptr;
  }
  // Streaming: the same bias as a function of distance (kernels::RelativeBias), or nullptr.
  // q: the Tq kept queries [Tq, hd].
  virtual const kernels::RelativeBias* stream_bias(ModelImpl&, int /*l*/, int /*h*/, int /*b*/, int /*q0*/,
                                                   const float* /*q*/) {
    return nullptr;
  }
  // dS [Tq, T] = dLoss/d(score) before the 1/sqrt(hd) scale (causal: j <= q0 + i);
  // accumulates its parameter gradients and adds its share of dq [Tq, hd].
  virtual void bias_backward(ModelImpl&, int /*l*/, int /*h*/, int /*b*/, int /*q0*/, const float* /*q*/,
                             const float* /*dS*/, float* /*dq*/) {}
  // After every head's bias_backward of layer l (e.g. FIRE backpropagates its MLP once).
  virtual void bias_backward_end(ModelImpl&, int /*l*/) {}
  // Shaw's bias is q-dependent and its gradient is taken after the scale (bit-compatible
  // with the original code): dS_scaled = scale * dS.
  virtual void bias_backward_scaled(ModelImpl&, int /*l*/, int /*h*/, int /*b*/, int /*q0*/, const float* /*q*/,
                                    const float* /*dS_scaled*/, float* /*dq*/) {}

  // --- positions
  virtual bool out_of_table(int /*p*/) const { return false; }
  // Why this encoding cannot run bidirectional attention (ModelConfig::causal false), or nullptr.
  virtual const char* causal_only() const { return nullptr; }

  const ModelConfig cfg;
};

// The hooks of cfg.encoding (RangeError for an unknown id).
std::unique_ptr<EncodingModel> make_encoding_model(const ModelConfig& cfg);

// Helpers shared by the distance-bias encodings (T5, Shaw, FIRE): the bias of query position p
// and key j is by_distance[j - p + T - 1], x = j - p + T - 1 in [0, T). Fills bias rows [Tq, T]
// for queries q0.. (j <= p only; the rest is masked).
void expand_distance_bias(const float* by_distance, int T, int q0, float* rows);

}  // namespace posenc
