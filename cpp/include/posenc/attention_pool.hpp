// Causal attention maps pooled for display: each [T, T] map (row i = query, entries j > i
// unused) becomes a [px, px] image of maxima, and each map's peak, the mean over query rows of
// the row's largest weight (how sharp the head is). The explorer draws these instead of the full
// maps (a 512 x 512 map is 256 K weights; its 192 x 192 picture 37 K pixels).
//
// Pixel (y, x) covers query rows [i0(y), i1(y)) and keys [j0(x), j1(x)) with cell = T / px,
//   i0(y) = floor(y cell), i1(y) = max(i0(y) + 1, floor((y + 1) cell)), likewise j0, j1;
// its value is the largest p_ij in it with j <= i, or -1 when all its keys lie above the
// diagonal (j0(x) >= i1(y)): a pixel with no weight, drawn transparent.
#pragma once

namespace posenc {

// maps [count, T, T] -> pooled [count, px, px], peaks [count]. 1 <= px <= T (RangeError naming
// `px` otherwise), count >= 0.
void pool_attention(const float* maps, int count, int T, int px, float* pooled, float* peaks);

}  // namespace posenc
