// The same kernels and the same tiny-model forward pass in TensorFlow.js ops,
// run on @tensorflow/tfjs-backend-wasm (XNNPACK, SIMD). `tf` is passed in: the
// npm module in Node, the UMD global in Chromium. Every function returns a
// tensor; the caller disposes it (or runs inside tf.tidy).
//
// Written the way one would with tfjs: inputs are tensors made once, the
// causal mask and position biases are constant [T, T] tensors, RoPE angles are
// formed from positions and frequencies in float32 (as HF does).

/** Constant tensors a kernel benchmark needs; all made once, outside the timing. */
export function tfInputs(tf, { q, k, v, x, T, D, alibiSlope, t5Bias }) {
  const mask = new Float32Array(T * T), alibi = new Float32Array(T * T), t5 = new Float32Array(T * T);
  for (let i = 0; i < T; i++)
    for (let j = 0; j < T; j++) {
      const visible = j <= i;
      mask[i * T + j] = visible ? 0 : -Infinity;
      alibi[i * T + j] = visible ? -alibiSlope * (i - j) : -Infinity;
      t5[i * T + j] = visible ? t5Bias[i * T + j] : -Infinity;
    }
  const half = D / 2;
  const invFreq = Float32Array.from({ length: half }, (_, i) => 1 / Math.pow(10000, (2 * i) / D));
  return {
    q: tf.tensor2d(q, [T, D]), k: tf.tensor2d(k, [T, D]), v: tf.tensor2d(v, [T, D]), x: tf.tensor2d(x, [T, D]),
    mask: tf.tensor2d(mask, [T, T]), alibi: tf.tensor2d(alibi, [T, T]), t5: tf.tensor2d(t5, [T, T]),
    positions: tf.tensor2d(Float32Array.from({ length: T }, (_, t) => t), [T, 1]),
    invFreq: tf.tensor2d(invFreq, [1, half]),
    scale: tf.scalar(1 / Math.sqrt(D)),
    T, D,
    dispose() {
      for (const key of ['q', 'k', 'v', 'x', 'mask', 'alibi', 't5', 'positions', 'invFreq', 'scale']) this[key].dispose();
    },
  };
}

/** RoPE (half layout) of x [T, D] at positions 0..T-1, angles in float32. */
export function tfRope(tf, x, positions, invFreq) {
  return tf.tidy(() => {
    const [T, D] = x.shape, half = D / 2;
    const angles = tf.matMul(positions, invFreq); // [T, half]
    const cos = tf.cos(angles), sin = tf.sin(angles);
    const x1 = tf.slice(x, [0, 0], [T, half]), x2 = tf.slice(x, [0, half], [T, half]);
    return tf.concat([tf.sub(tf.mul(x1, cos), tf.mul(x2, sin)), tf.add(tf.mul(x2, cos), tf.mul(x1, sin))], 1);
  });
}

/** Q K^T: tfjs's transposeB flag, or an explicit transpose first (whichever the caller picks). */
export function tfQkt(tf, q, k, explicitTranspose) {
  return explicitTranspose ? tf.tidy(() => tf.matMul(q, tf.transpose(k))) : tf.matMul(q, k, false, true);
}

/**
 * Causal attention probabilities softmax(scale q k^T + bias), bias holding -inf above the diagonal;
 * q k^T through transposeB or an explicit transpose (tfQkt), whichever the caller picks.
 */
export function tfProbs(tf, q, k, scale, bias, explicitTranspose = false) {
  return tf.tidy(() => tf.softmax(tf.add(tf.mul(tfQkt(tf, q, k, explicitTranspose), scale), bias)));
}

/** Causal attention output softmax(scale q k^T + mask) v. */
export function tfAttention(tf, q, k, v, scale, mask, explicitTranspose = false) {
  return tf.tidy(() => tf.matMul(tfProbs(tf, q, k, scale, mask, explicitTranspose), v));
}

// ---------------------------------------------------------------------------
// The tiny model (cpp/src/model/model.cpp) in tfjs ops, with our weights.

const GELU_S = Math.sqrt(2 / Math.PI), GELU_C = 0.044715;

export class TfModel {
  /**
   * weights: bench/lib/weights.js weightsFromCheckpoint(); RoPE tables cached per length.
   * layout 'perHead' (the default, tfjs at its fastest): attention as 2-D matMuls, one head at a
   * time, the shape tfjs-backend-wasm hands to XNNPACK. 'batched': the heads as a batch
   * dimension (3-D matMuls), which tfjs-backend-wasm runs through its generic batched kernel.
   */
  constructor(tf, config, weights, { layout = 'perHead' } = {}) {
    this.tf = tf;
    this.cfg = config;
    this.layout = layout;
    this.w = new Map(weights.tensors.map((t) => [t.name, tf.tensor(weights.get(t.name), t.shape)]));
    this.tables = new Map();
  }

  #rope(T) {
    if (!this.tables.has(T)) {
      const { tf } = this, hd = this.cfg.dModel / this.cfg.heads, half = hd / 2;
      const invFreq = Float32Array.from({ length: half }, (_, i) => 1 / Math.pow(this.cfg.ropeBase ?? 10000, (2 * i) / hd));
      const mask = new Float32Array(T * T);
      for (let i = 0; i < T; i++) mask.fill(-Infinity, i * T + i + 1, (i + 1) * T);
      this.tables.set(T, tf.tidy(() => {
        const angles = tf.matMul(tf.tensor2d(Float32Array.from({ length: T }, (_, t) => t), [T, 1]), tf.tensor2d(invFreq, [1, half]));
        const cos = tf.cos(angles), sin = tf.sin(angles);
        return {
          cos: tf.keep(cos), sin: tf.keep(sin), mask: tf.keep(tf.tensor2d(mask, [T, T])),
          cos2: tf.keep(tf.concat([cos, cos], 1)), sin2: tf.keep(tf.concat([sin, sin], 1)), // [T, hd]
        };
      }));
    }
    return this.tables.get(T);
  }

  #layernorm(x, name) {
    const { tf } = this;
    const mean = tf.mean(x, -1, true), xc = tf.sub(x, mean);
    const rstd = tf.rsqrt(tf.add(tf.mean(tf.square(xc), -1, true), 1e-5));
    return tf.add(tf.mul(tf.mul(xc, rstd), this.w.get(`${name}.weight`)), this.w.get(`${name}.bias`));
  }

  #linear(x, name, bias = true) {
    const y = this.tf.matMul(x, this.w.get(`${name}.weight`));
    return bias ? this.tf.add(y, this.w.get(`${name}.bias`)) : y;
  }

  /** Logits [T, V] of one sequence (tokens: int32 tensor [T]). */
  forward(tokens) {
    if (this.layout === 'batched') return this.#forwardBatched(tokens);
    return this.layout === 'perHeadSliced' ? this.#forwardPerHeadSliced(tokens) : this.#forwardPerHead(tokens);
  }

  // Per head, the straightforward way: q, k, v as column slices [T, hd] of qkv, RoPE through
  // half-width slices, the heads concatenated before the output projection. Fewer ops than
  // #forwardPerHead, but each slice is a slow generic copy: it wins only at small T.
  #forwardPerHeadSliced(tokens) {
    const { tf } = this;
    const { layers, heads: H, dModel: C } = this.cfg, hd = C / H, half = hd / 2, T = tokens.shape[0];
    const { cos, sin, mask } = this.#rope(T);
    const rot = (x) => {
      const x1 = tf.slice(x, [0, 0], [T, half]), x2 = tf.slice(x, [0, half], [T, half]);
      return tf.concat([tf.sub(tf.mul(x1, cos), tf.mul(x2, sin)), tf.add(tf.mul(x2, cos), tf.mul(x1, sin))], 1);
    };
    const scale = 1 / Math.sqrt(hd);
    return tf.tidy(() => {
      let x = tf.gather(this.w.get('wte'), tokens);
      for (let l = 0; l < layers; l++) {
        const qkv = this.#linear(this.#layernorm(x, `h${l}.ln1`), `h${l}.attn.qkv`); // [T, 3C]
        const ys = [];
        for (let h = 0; h < H; h++) {
          const col = (part) => tf.slice(qkv, [0, part * C + h * hd], [T, hd]);
          const q = tf.mul(rot(col(0)), scale), k = rot(col(1));
          ys.push(tf.matMul(tf.softmax(tf.add(tf.matMul(q, tf.transpose(k)), mask)), col(2)));
        }
        const res2 = tf.add(x, this.#linear(tf.concat(ys, 1), `h${l}.attn.proj`));
        x = tf.add(res2, this.#mlp(res2, l));
      }
      return this.#linear(this.#layernorm(x, 'lnf'), 'lm_head', false);
    });
  }

  // Per head h, with no column slice (tfjs-backend-wasm slices columns in a slow generic
  // kernel): the head's weights are cut once, at construction (#headWeights), so
  //   q = LN1(x) Wq_h / sqrt(hd) + bq_h,  q~ = LN1(x) Wq_h R / sqrt(hd) + bq_h R   [T, hd]
  //   rope(q) = q * [cos, cos] + q~ * [sin, sin]   (R: rotate_half as a [hd, hd] matrix)
  // and the same for k (no scale) and v; then scores = rope(q) rope(k)^T + mask [T, T] with an
  // explicit transpose (transposeB is slower), y_h = softmax(scores) v [T, hd], and the output
  // projection sum_h y_h Wproj[h rows] + b. Every matMul is 2-D, the shape XNNPACK runs.
  #forwardPerHead(tokens) {
    const { tf } = this;
    const { layers, heads: H } = this.cfg, T = tokens.shape[0];
    const { cos2, sin2, mask } = this.#rope(T);
    const heads = this.#headWeights();
    const rope = (x, [w, b], [wr, br]) => tf.add(tf.mul(tf.add(tf.matMul(x, w), b), cos2), tf.mul(tf.add(tf.matMul(x, wr), br), sin2));
    return tf.tidy(() => {
      let x = tf.gather(this.w.get('wte'), tokens);
      for (let l = 0; l < layers; l++) {
        const ln1 = this.#layernorm(x, `h${l}.ln1`);
        let att = this.w.get(`h${l}.attn.proj.bias`);
        for (let h = 0; h < H; h++) {
          const hw = heads[l][h];
          const q = rope(ln1, hw.q, hw.qr), k = rope(ln1, hw.k, hw.kr);
          const v = tf.add(tf.matMul(ln1, hw.v[0]), hw.v[1]);
          const p = tf.softmax(tf.add(tf.matMul(q, tf.transpose(k)), mask));
          att = tf.add(att, tf.matMul(tf.matMul(p, v), hw.proj));
        }
        const res2 = tf.add(x, att);
        x = tf.add(res2, this.#mlp(res2, l));
      }
      return this.#linear(this.#layernorm(x, 'lnf'), 'lm_head', false);
    });
  }

  // Per layer, per head: [weight [C, hd], bias [hd]] of q, q R, k, k R, v (q's scaled by
  // 1/sqrt(hd)), and the head's rows of the output projection [hd, C]. Made once.
  #headWeights() {
    if (this.heads) return this.heads;
    const { tf } = this;
    const { layers, heads: H, dModel: C } = this.cfg, hd = C / H, half = hd / 2, scale = 1 / Math.sqrt(hd);
    const w = (name) => ({ data: this.w.get(name).dataSync(), shape: this.w.get(name).shape });
    // columns [c0, c0 + hd) of a [C, 3C] weight (and its [3C] bias), times s, optionally rotated:
    // (x R)[:, i] = -x[:, i + half] for i < half, x[:, i - half] otherwise
    const cut = (W, B, c0, s, rotate) => {
      const wOut = new Float32Array(C * hd), bOut = new Float32Array(hd);
      for (let i = 0; i < hd; i++) {
        const [src, sign] = !rotate ? [i, 1] : i < half ? [i + half, -1] : [i - half, 1];
        for (let r = 0; r < C; r++) wOut[r * hd + i] = sign * s * W.data[r * W.shape[1] + c0 + src];
        bOut[i] = sign * s * B.data[c0 + src];
      }
      return [tf.tensor2d(wOut, [C, hd]), tf.tensor1d(bOut)];
    };
    this.heads = [];
    for (let l = 0; l < layers; l++) {
      const W = w(`h${l}.attn.qkv.weight`), B = w(`h${l}.attn.qkv.bias`), P = w(`h${l}.attn.proj.weight`);
      this.heads.push(Array.from({ length: H }, (_, h) => ({
        q: cut(W, B, h * hd, scale, false), qr: cut(W, B, h * hd, scale, true),
        k: cut(W, B, C + h * hd, 1, false), kr: cut(W, B, C + h * hd, 1, true),
        v: cut(W, B, 2 * C + h * hd, 1, false),
        proj: tf.tensor2d(P.data.slice(h * hd * C, (h + 1) * hd * C), [hd, C]),
      })));
    }
    return this.heads;
  }

  #mlp(res2, l) {
    const { tf } = this;
    const u = this.#linear(this.#layernorm(res2, `h${l}.ln2`), `h${l}.mlp.fc`);
    const gelu = tf.mul(tf.mul(u, 0.5), tf.add(1, tf.tanh(tf.mul(tf.add(u, tf.mul(tf.pow(u, 3), GELU_C)), GELU_S))));
    return this.#linear(gelu, `h${l}.mlp.proj`);
  }

  // The heads as a batch dimension: q, k, v [H, T, hd], 3-D matMuls and softmax over [H, T, T].
  #forwardBatched(tokens) {
    const { tf } = this;
    const { layers, heads: H, dModel: C } = this.cfg, hd = C / H, half = hd / 2, T = tokens.shape[0];
    const { cos, sin, mask } = this.#rope(T);
    const rot = (x) => {
      const x1 = tf.slice(x, [0, 0, 0], [H, T, half]), x2 = tf.slice(x, [0, 0, half], [H, T, half]);
      return tf.concat([tf.sub(tf.mul(x1, cos), tf.mul(x2, sin)), tf.add(tf.mul(x2, cos), tf.mul(x1, sin))], 2);
    };
    return tf.tidy(() => {
      let x = tf.gather(this.w.get('wte'), tokens);
      for (let l = 0; l < layers; l++) {
        const qkv = this.#linear(this.#layernorm(x, `h${l}.ln1`), `h${l}.attn.qkv`); // [T, 3C]
        const [q, k, v] = tf.split(tf.transpose(tf.reshape(qkv, [T, 3, H, hd]), [1, 2, 0, 3]), 3, 0)
          .map((t) => tf.reshape(t, [H, T, hd]));
        const scores = tf.add(tf.mul(tf.matMul(rot(q), rot(k), false, true), 1 / Math.sqrt(hd)), mask);
        const y = tf.reshape(tf.transpose(tf.matMul(tf.softmax(scores), v), [1, 0, 2]), [T, C]);
        const res2 = tf.add(x, this.#linear(y, `h${l}.attn.proj`));
        x = tf.add(res2, this.#mlp(res2, l));
      }
      return this.#linear(this.#layernorm(x, 'lnf'), 'lm_head', false);
    });
  }

  dispose() {
    for (const t of this.w.values()) t.dispose();
    for (const table of this.tables.values()) Object.values(table).forEach((t) => t.dispose());
    for (const hw of (this.heads ?? []).flat()) Object.values(hw).flat().forEach((t) => t.dispose());
  }
}
