// Tiled causal attention with an online softmax (one pass over the keys, never a [T, T] matrix): a workgroup takes
// Q_TILE query rows of one head, one invocation per row, and walks the keys up to its last row in tiles of `keyTile`
// rows staged in workgroup memory (keys and values together); per tile each row takes its visible scores' maximum,
// rescales its running sum and output once, and adds the tile's weighted values. Grouped-query attention: head h reads
// key/value head h / group. Query row i is at position p.pos + i (a stream's step: its p.t rows after p.pos cached
// ones); a window w > 0 lets position i see keys (i - w, i] only. q, o [t, heads * HD]; k, v [pos + t, kv_heads * HD];
// the scores are scaled by p.scale.
import { bindings, entry } from './kernels.js';

export const Q_TILE = 64;

/** The keys a tile stages for head size hd, within `storageBytes` of workgroup memory (keys and values). */
export const keyTile = (hd, storageBytes) => Math.max(1, Math.min(32, Math.floor(storageBytes / (2 * 4 * hd))));

export const attentionShader = (hd, kt) => /* wgsl */ `
struct P { t: u32, heads: u32, kv_heads: u32, group: u32, scale: f32, window: u32, pos: u32, pad1: u32 }
${bindings(['q', 'read'], ['k', 'read'], ['v', 'read'], ['o', 'read_write'])}
const HD = ${hd}u;
const KT = ${kt}u;
const QT = ${Q_TILE}u;
var<workgroup> ks: array<f32, ${kt * hd}>;
var<workgroup> vs: array<f32, ${kt * hd}>;
${entry(Q_TILE)}
  let h = wg.y;
  let g = h / p.group;
  let first = wg.x * QT;
  let i = first + li;
  let ip = p.pos + i;
  let last = p.pos + min(p.t, first + QT) - 1u;
  let live = i < p.t;
  let qs = p.heads * HD;
  let kvs = p.kv_heads * HD;
  var qv: array<f32, ${hd}>;
  var acc: array<f32, ${hd}>;
  if (live) { for (var d = 0u; d < HD; d++) { qv[d] = q[i * qs + h * HD + d] * p.scale; } }
  var m = -3.0e38;
  var l = 0.0;
  var start = 0u;
  if (p.window > 0u && p.pos + first + 1u > p.window) { start = ((p.pos + first + 1u - p.window) / KT) * KT; }
  for (var j0 = start; j0 <= last; j0 += KT) {
    for (var e = li; e < KT * HD; e += QT) {
      let j = j0 + e / HD;
      if (j <= last) {
        ks[e] = k[j * kvs + g * HD + e % HD];
        vs[e] = v[j * kvs + g * HD + e % HD];
      }
    }
    workgroupBarrier();
    if (live) {
      var s: array<f32, ${kt}>;
      var top = m;
      for (var jj = 0u; jj < KT; jj++) {
        let j = j0 + jj;
        s[jj] = -3.0e38;
        if (j <= ip && (p.window == 0u || j + p.window > ip)) {
          var dot = 0.0;
          for (var d = 0u; d < HD; d++) { dot += qv[d] * ks[jj * HD + d]; }
          s[jj] = dot;
          top = max(top, dot);
        }
      }
      if (top > -3.0e38) {
        let c = exp(m - top);
        l *= c;
        for (var d = 0u; d < HD; d++) { acc[d] *= c; }
        for (var jj = 0u; jj < KT; jj++) {
          if (s[jj] > -3.0e38) {
            let e = exp(s[jj] - top);
            l += e;
            for (var d = 0u; d < HD; d++) { acc[d] += e * vs[jj * HD + d]; }
          }
        }
        m = top;
      }
    }
    workgroupBarrier();
  }
  if (live) { for (var d = 0u; d < HD; d++) { o[i * qs + h * HD + d] = acc[d] / l; } }
}`;
