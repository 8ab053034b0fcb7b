// The GPU forward's WGSL compute shaders, except attention (attention.js): the matrix product with a weight in its
// storage format (weights.js), the embedding lookup, RMSNorm, RoPE, the gated MLP's activation and the per-row NLL of a block of logits.
// Rows past the 65,535 workgroups a dimension allows are reached through a second dimension: a row's index is
// wg.y * ROW_SPAN + wg.x (grid() gives the dispatch).
import { WEIGHT_DECODERS } from './weights.js';

// Binding 0: the uniform parameters p (a struct P the shader declares); then storage buffers [name, access ('read' or
// 'read_write'), element type (default f32)], in order; and the entry point's first line.
export const bindings = (...list) => ['@group(0) @binding(0) var<uniform> p: P;',
  ...list.map(([name, access, type = 'f32'], i) => `@group(0) @binding(${i + 1}) var<storage, ${access}> ${name}: array<${type}>;`)].join('\n');
export const entry = (size) => `@compute @workgroup_size(${size})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {`;

export const ROW_SPAN = 32768;
/** The dispatch for `n` workgroups along rows (see ROW_SPAN). */
export const grid = (n) => [Math.min(n, ROW_SPAN), Math.ceil(n / ROW_SPAN)];
const ROW = 'wg.y * 32768u + wg.x';
// A tree reduction of part[0 .. n) into part[0] by `op` ('+' or 'max'), every invocation of the workgroup taking part.
const reduce = (n, op) => `for (var h = ${n / 2}u; h > 0u; h >>= 1u) {
    if (li < h) { part[li] = ${op === '+' ? 'part[li] + part[li + h]' : 'max(part[li], part[li + h])'}; }
    workgroupBarrier();
  }`;

// Matrix product: o[t, n] (+)= sum_k x[t, k] W[n, k] (+ b[n]), for rows t < p.t of x (from element x_off) into o (from
// element o_off); acc = 1 adds to o. A workgroup computes MM_ROWS rows by 64 columns, the rows' x staged 64 columns at
// a time in workgroup memory; each invocation decodes its column's weights once per stage for all the rows.
export const MM_ROWS = 8;
export const matmulShader = (dtype) => /* wgsl */ `
struct P { n: u32, k: u32, t: u32, acc: u32, bias: u32, x_off: u32, o_off: u32, pad: u32 }
${bindings(['w', 'read', 'u32'], ['x', 'read'], ['o', 'read_write'], ['b', 'read'])}
${WEIGHT_DECODERS[dtype]}
const R = ${MM_ROWS}u;
var<workgroup> xs: array<f32, ${MM_ROWS * 64}>;
${entry(64)}
  let n = wg.x * 64u + li;
  let t0 = wg.y * R;
  var sum: array<f32, ${MM_ROWS}>;
  for (var k0 = 0u; k0 < p.k; k0 += 64u) {
    for (var r = 0u; r < R; r++) {
      var v = 0.0;
      if (t0 + r < p.t && k0 + li < p.k) { v = x[p.x_off + (t0 + r) * p.k + k0 + li]; }
      xs[r * 64u + li] = v;
    }
    workgroupBarrier();
    if (n < p.n) {
      let kn = min(64u, p.k - k0);
      for (var kk = 0u; kk < kn; kk++) {
        let wv = weight(n, k0 + kk);
        for (var r = 0u; r < R; r++) { sum[r] += xs[r * 64u + kk] * wv; }
      }
    }
    workgroupBarrier();
  }
  if (n >= p.n) { return; }
  for (var r = 0u; r < R; r++) {
    let t = t0 + r;
    if (t >= p.t) { break; }
    var v = sum[r];
    if (p.bias == 1u) { v += b[n]; }
    let i = p.o_off + t * p.n + n;
    if (p.acc == 1u) { v += o[i]; }
    o[i] = v;
  }
}`;

// Embedding lookup: o[t, d] = W[tok[p.tok_off + t], d] * p.scale (W: p.n rows of p.k values), for t < p.t.
export const embedShader = (dtype) => /* wgsl */ `
struct P { n: u32, k: u32, t: u32, scale: f32, tok_off: u32, pad0: u32, pad1: u32, pad2: u32 }
${bindings(['w', 'read', 'u32'], ['tok', 'read', 'u32'], ['o', 'read_write'])}
${WEIGHT_DECODERS[dtype]}
${entry(64)}
  let t = ${ROW};
  if (t >= p.t) { return; }
  for (var d = li; d < p.k; d += 64u) { o[t * p.k + d] = weight(tok[p.tok_off + t], d) * p.scale; }
}`;

// RMSNorm of each row of p.d values: o[t] (+)= x[t] / sqrt(mean(x[t]^2) + eps) * g, for rows t < p.rows of x (from
// element x_off) and o (from o_off); acc = 1 adds to o. One workgroup per row.
export const rmsnormShader = /* wgsl */ `
struct P { d: u32, rows: u32, eps: f32, acc: u32, x_off: u32, o_off: u32, pad0: u32, pad1: u32 }
${bindings(['x', 'read'], ['g', 'read'], ['o', 'read_write'])}
var<workgroup> part: array<f32, 64>;
${entry(64)}
  let t = ${ROW};
  if (t >= p.rows) { return; }
  let xr = p.x_off + t * p.d;
  let orow = p.o_off + t * p.d;
  var s = 0.0;
  for (var d = li; d < p.d; d += 64u) { let v = x[xr + d]; s += v * v; }
  part[li] = s;
  workgroupBarrier();
  ${reduce(64, '+')}
  let r = 1.0 / sqrt(part[0] / f32(p.d) + p.eps);
  for (var d = li; d < p.d; d += 64u) {
    var v = x[xr + d] * r * g[d];
    if (p.acc == 1u) { v += o[orow + d]; }
    o[orow + d] = v;
  }
}`;

// RoPE in place on rows row0 .. row0 + t of x [rows, heads * hd]: pair i of every head of row row0 + r rotated by the
// tables' row pos + r (its position; cos, sin [positions, rd / 2], the attention scale already in them); half layout:
// channels i and i + rd/2; interleaved: 2i and 2i + 1.
export const ropeShader = /* wgsl */ `
struct P { t: u32, heads: u32, hd: u32, rd: u32, interleaved: u32, pos: u32, row0: u32, pad2: u32 }
${bindings(['x', 'read_write'], ['cs', 'read'], ['sn', 'read'])}
${entry(64)}
  let half = p.rd / 2u;
  let e = (${ROW}) * 64u + li;
  if (e >= p.t * p.heads * half) { return; }
  let i = e % half;
  let h = (e / half) % p.heads;
  let t = e / (half * p.heads);
  let base = (p.row0 + t) * p.heads * p.hd + h * p.hd;
  var a = base + i;
  var b = base + i + half;
  if (p.interleaved == 1u) { a = base + 2u * i; b = a + 1u; }
  let c = cs[(p.pos + t) * half + i];
  let s = sn[(p.pos + t) * half + i];
  let x1 = x[a];
  let x2 = x[b];
  x[a] = x1 * c - x2 * s;
  x[b] = x2 * c + x1 * s;
}`;

// The gated MLP's activation in place over p.n values: g = act(g) * u, p.act being the core's Activation (lm.hpp):
// SiLU (0: SwiGLU) or GELU with the tanh approximation (1: GeGLU), 0.5 g (1 + tanh(z)) = g / (1 + e^(-2z)),
// z = sqrt(2 / pi) (g + 0.044715 g^3).
export const gateShader = /* wgsl */ `
struct P { n: u32, act: u32, pad1: u32, pad2: u32 }
${bindings(['g', 'read_write'], ['u', 'read'])}
${entry(64)}
  let i = (${ROW}) * 64u + li;
  if (i >= p.n) { return; }
  let v = g[i];
  var e = -v;
  if (p.act == 1u) {
    let c = -2.0 * 0.7978845608028654;
    e = v * (c + c * 0.044715 * v * v);
  }
  g[i] = v / (1.0 + exp(e)) * u[i];
}`;

// NLL of a block of logits [p.rows, p.v] (rows t0 .. t0 + rows - 1 of the input): nll[t] = logsumexp(row) -
// row[tok[t + 1]] for t < p.t - 1, one workgroup per row.
export const nllShader = /* wgsl */ `
struct P { v: u32, rows: u32, t0: u32, t: u32 }
${bindings(['z', 'read'], ['tok', 'read', 'u32'], ['nll', 'read_write'])}
var<workgroup> part: array<f32, 256>;
${entry(256)}
  let r = ${ROW};
  let t = p.t0 + r;
  if (r >= p.rows || t + 1u >= p.t) { return; }
  let row = r * p.v;
  var m = -3.0e38;
  for (var j = li; j < p.v; j += 256u) { m = max(m, z[row + j]); }
  part[li] = m;
  workgroupBarrier();
  ${reduce(256, 'max')}
  let top = part[0];
  workgroupBarrier();
  var s = 0.0;
  for (var j = li; j < p.v; j += 256u) { s += exp(z[row + j] - top); }
  part[li] = s;
  workgroupBarrier();
  ${reduce(256, '+')}
  if (li == 0u) { nll[t] = top + log(part[0]) - z[row + tok[t + 1u]]; }
}`;
