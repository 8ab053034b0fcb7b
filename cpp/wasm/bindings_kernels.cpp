// embind layer for the raw kernels the benchmark times on data already in
// wasm memory (bench/lib/ours.js), and the heap's high-water mark. Thin, like
// bindings.cpp: pointers and sizes in, a status code out.
#include <emscripten/bind.h>
#include <malloc.h>

#include "bindings_common.hpp"
#include "posenc/error.hpp"
#include "posenc/kernels.hpp"

namespace {

using namespace posenc::wasm;

void check_shape(int rows, int inner, int cols) {
  posenc::require_int_range("M", rows, 0, 1 << 24);
  posenc::require_int_range("K", inner, 0, 1 << 24);
  posenc::require_int_range("N", cols, 0, 1 << 24);
}

// C[M,N] = A[M,K] @ B[K,N]
int matmul(ptr a, ptr b, ptr c, int M, int K, int N) {
  return guard([&] {
    check_shape(M, K, N);
    posenc::kernels::matmul(at<const float>(a), at<const float>(b), at<float>(c), M, K, N, false);
  });
}

// C[M,N] = A[M,K] @ B[N,K]^T   (Q K^T)
int matmul_bt(ptr a, ptr b, ptr c, int M, int K, int N) {
  return guard([&] {
    check_shape(M, K, N);
    posenc::kernels::matmul_bt(at<const float>(a), at<const float>(b), at<float>(c), M, K, N, false);
  });
}

// O[Tq, dv] = softmax(scale Q K^T - slope |i - j|, causal) V, streamed (no [Tq, Tk] buffer).
int attention_forward(ptr q, ptr k, ptr v, ptr o, int tq, int tk, int d, int dv, double scale, bool causal,
                      double slope) {
  return guard([&] {
    posenc::require_int_range("queryLength", tq, 1, 1 << 24);
    posenc::require_int_range("keyLength", tk, tq, 1 << 24);
    posenc::require_int_range("dim", d, 1, 1 << 16);
    posenc::require_int_range("valueDim", dv, 1, 1 << 16);
    posenc::kernels::attention_forward(at<const float>(q), at<const float>(k), at<const float>(v), at<float>(o), tq,
                                       tk, d, dv, dv, static_cast<float>(scale), causal, static_cast<float>(slope),
                                       nullptr);
  });
}

// Peak bytes the allocator has taken from wasm memory (dlmalloc's max_footprint).
double heap_peak_bytes() { return static_cast<double>(mallinfo().usmblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(posenc_kernels) {
  using emscripten::function;
  function("kernelMatmul", &matmul);
  function("kernelMatmulBt", &matmul_bt);
  function("kernelAttentionForward", &attention_forward);
  function("heapPeakBytes", &heap_peak_bytes);
}
