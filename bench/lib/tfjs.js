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

/** Causal attention probabilities softmax(scale q k^T + bias), bias holding -inf above the diagonal. */
export function tfProbs(tf, q, k, scale, bias) {
  return tf.tidy(() => tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), scale), bias)));
}

/** Causal attention output softmax(scale q k^T + mask) v. */
export function tfAttention(tf, q, k, v, scale, mask) {
  return tf.tidy(() => tf.matMul(tfProbs(tf, q, k, scale, mask), v));
}

// ---------------------------------------------------------------------------
// The tiny model (cpp/src/model.cpp) in tfjs ops, with our weights.

const GELU_S = Math.sqrt(2 / Math.PI), GELU_C = 0.044715;

export class TfModel {
  /** weights: bench/lib/weights.js weightsFromCheckpoint(); RoPE tables cached per length. */
  constructor(tf, config, weights) {
    this.tf = tf;
    this.cfg = config;
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
        return { cos: tf.keep(tf.cos(angles)), sin: tf.keep(tf.sin(angles)), mask: tf.keep(tf.tensor2d(mask, [T, T])) };
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
        const u = this.#linear(this.#layernorm(res2, `h${l}.ln2`), `h${l}.mlp.fc`);
        const gelu = tf.mul(tf.mul(u, 0.5), tf.add(1, tf.tanh(tf.mul(tf.add(u, tf.mul(tf.pow(u, 3), GELU_C)), GELU_S))));
        x = tf.add(res2, this.#linear(gelu, `h${l}.mlp.proj`));
      }
      return this.#linear(this.#layernorm(x, 'lnf'), 'lm_head', false);
    });
  }

  dispose() {
    for (const t of this.w.values()) t.dispose();
    for (const { cos, sin, mask } of this.tables.values()) [cos, sin, mask].forEach((t) => t.dispose());
  }
}
