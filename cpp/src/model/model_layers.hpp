// Internal: the model's layers, each forward next to its backward (llm.c style).
// Shapes in comments: N = rows (B*T), C = channels, OC = output channels.
// Every backward ACCUMULATES (+=) into parameter gradients; whether it overwrites
// or accumulates into the input gradient is stated per function.
#pragma once

#include <cstddef>
#include <cstdint>

namespace posenc::layers {

// out[N,C] = (inp - mean) * rstd * w + b;   mean[N], rstd[N] kept for backward.
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* w, const float* b, int N,
                       int C);
// dinp[N,C] += ..., dw[C] += ..., db[C] += ...
void layernorm_backward(float* dinp, float* dw, float* db, const float* dout, const float* inp, const float* w,
                        const float* mean, const float* rstd, int N, int C);

// out[N,OC] = inp[N,C] @ W[C,OC] + bias[OC]   (bias may be null)
void linear_forward(float* out, const float* inp, const float* W, const float* bias, int N, int C, int OC);
// dinp[N,C] = dout @ W^T (overwritten; skipped if dinp is null), dW[C,OC] += inp^T @ dout, dbias[OC] += colsum(dout)
void linear_backward(float* dinp, float* dW, float* dbias, const float* dout, const float* inp, const float* W, int N,
                     int C, int OC);

// GELU, tanh approximation (GPT-2): out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).  [n]
// th[n] keeps the tanh values for the backward.
void gelu_forward(float* out, float* th, const float* inp, std::size_t n);
// dinp[n] = gelu'(inp) * dout (overwritten; may alias dout)
void gelu_backward(float* dinp, const float* inp, const float* th, const float* dout, std::size_t n);

// out[h * stride + j] = sum_u w2[u H + h] gelu(w1[u] x[j] + b1[u])  for j < n, h < H (overwritten):
// a 1 -> hidden -> H MLP without output bias on each input (FIRE's bias).  w1, b1 [hidden]; w2 [hidden, H]
void mlp_scalar_forward(float* out, std::size_t stride, const float* x, std::size_t n, const float* w1, const float* b1,
                        const float* w2, int hidden, int H);

// Row helpers (SIMD over n), for encodings that work one attention row at a time (FIRE).
void affine(float* out, const float* x, float a, float b, std::size_t n);  // out[n] = a x + b
void axpy(float* y, const float* x, float a, std::size_t n);              // y[n] += a x
float dot(const float* x, const float* y, std::size_t n);                 // sum of x y
float sum(const float* x, std::size_t n);                                 // sum of x

// out[n] = a + b
void residual_forward(float* out, const float* a, const float* b, std::size_t n);

// Cross-entropy over rows with targets (-1 = not scored).
//   logits[N,V] -> probs[N,V] (softmax, scored rows only; others untouched),
//   returns the summed loss (double) and counts scored / correct (argmax == target, first max wins).
// Index of the largest of x[0..n) (the first one on ties); n >= 1.
int argmax(const float* x, int n);

struct CrossEntropySums {
  double loss = 0.0;
  int scored = 0;
  int correct = 0;
};
CrossEntropySums crossentropy_forward(float* probs, const float* logits, const int32_t* targets, int N, int V);
// dlogits[N,V] = (probs - onehot(target)) * scale for scored rows, 0 for the others (overwritten).
// dlogits may alias probs.
void crossentropy_backward(float* dlogits, const float* probs, const int32_t* targets, int N, int V, float scale);

}  // namespace posenc::layers
