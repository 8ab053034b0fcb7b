// The tiny transformer in plain JavaScript (forward, backward, AdamW), for the
// benchmark's baseline: the same maths as cpp/src/model/model.cpp (pre-LayerNorm
// blocks, causal multi-head attention with RoPE in the half layout, tanh
// GELU, untied lm_head, AdamW with decay on matmul weights, global-norm
// clipping at 1), written the straightforward way: every row computed, every
// [T, T] attention matrix materialised, loops over typed arrays.
import { layout } from './weights.js';
import { matmul } from './plain.js';

const EPS = 1e-5;
const GELU_S = Math.sqrt(2 / Math.PI), GELU_C = 0.044715;
const ADAM = { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, clip: 1 };

// out[N,OC] = x[N,C] W[C,OC] + b
function linear(out, x, W, b, N, C, OC) {
  matmul(x, W, out, N, C, OC);
  if (b) for (let n = 0; n < N; n++) for (let o = 0; o < OC; o++) out[n * OC + o] += b[o];
}
// dx[N,C] = dout W^T;  dW += x^T dout;  db += colsum(dout)
function linearBackward(dx, dW, db, dout, x, W, N, C, OC) {
  if (dx)
    for (let n = 0; n < N; n++)
      for (let c = 0; c < C; c++) {
        let s = 0;
        for (let o = 0; o < OC; o++) s += dout[n * OC + o] * W[c * OC + o];
        dx[n * C + c] = s;
      }
  for (let n = 0; n < N; n++)
    for (let c = 0; c < C; c++) {
      const xv = x[n * C + c];
      for (let o = 0; o < OC; o++) dW[c * OC + o] += xv * dout[n * OC + o];
    }
  if (db) for (let n = 0; n < N; n++) for (let o = 0; o < OC; o++) db[o] += dout[n * OC + o];
}

function layernorm(out, mean, rstd, x, w, b, N, C) {
  for (let n = 0; n < N; n++) {
    let m = 0;
    for (let c = 0; c < C; c++) m += x[n * C + c];
    m /= C;
    let v = 0;
    for (let c = 0; c < C; c++) v += (x[n * C + c] - m) ** 2;
    const s = 1 / Math.sqrt(v / C + EPS);
    for (let c = 0; c < C; c++) out[n * C + c] = (x[n * C + c] - m) * s * w[c] + b[c];
    mean[n] = m;
    rstd[n] = s;
  }
}
// dx += ..., dw += ..., db += ...
function layernormBackward(dx, dw, db, dout, x, w, mean, rstd, N, C) {
  for (let n = 0; n < N; n++) {
    let gMean = 0, gxMean = 0;
    for (let c = 0; c < C; c++) {
      const xhat = (x[n * C + c] - mean[n]) * rstd[n], g = w[c] * dout[n * C + c];
      gMean += g;
      gxMean += g * xhat;
    }
    gMean /= C;
    gxMean /= C;
    for (let c = 0; c < C; c++) {
      const xhat = (x[n * C + c] - mean[n]) * rstd[n], d = dout[n * C + c];
      db[c] += d;
      dw[c] += d * xhat;
      dx[n * C + c] += rstd[n] * (w[c] * d - gMean - xhat * gxMean);
    }
  }
}

// RoPE (half layout) on rows of x [rows, hd]; row r is at position r % T. sign -1: the transpose.
function rope(x, rows, T, hd, cos, sin, sign) {
  const half = hd / 2;
  for (let r = 0; r < rows; r++) {
    const t = r % T, o = r * hd;
    for (let i = 0; i < half; i++) {
      const c = cos[t * half + i], s = sign * sin[t * half + i];
      const a = x[o + i], b = x[o + half + i];
      x[o + i] = a * c - b * s;
      x[o + half + i] = b * c + a * s;
    }
  }
}

export class PlainModel {
  constructor(config, params) {
    this.cfg = config;
    const { tensors, count } = layout(config);
    this.tensors = tensors;
    this.byName = new Map(tensors.map((t) => [t.name, t]));
    this.p = Float32Array.from(params);
    if (this.p.length !== count) throw new RangeError(`expected ${count} parameters, got ${this.p.length}`);
    this.g = new Float32Array(count);
    this.m = new Float32Array(count);
    this.v = new Float32Array(count);
    this.step = 0;
    this.C = config.dModel;
    this.H = config.heads;
    this.hd = this.C / this.H;
    this.F = config.mlpRatio * this.C;
    this.V = config.vocabSize;
    this.L = config.layers;
    this.shape = null;
  }

  P(name) { const t = this.byName.get(name); return this.p.subarray(t.offset, t.offset + t.size); }
  G(name) { const t = this.byName.get(name); return this.g.subarray(t.offset, t.offset + t.size); }

  // Buffers for (B, T), reused while the shape stays.
  #prepare(B, T) {
    if (this.shape && this.shape.B === B && this.shape.T === T) return;
    const { C, F, V, L, H, hd } = this, N = B * T;
    const f = (n) => new Float32Array(n);
    this.acts = {
      x0: f(N * C),
      layer: Array.from({ length: L }, () => ({
        ln1: f(N * C), mean1: f(N), rstd1: f(N), qkv: f(N * 3 * C), q: f(N * C), k: f(N * C), v: f(N * C),
        att: f(B * H * T * T), atty: f(N * C), res2: f(N * C), ln2: f(N * C), mean2: f(N), rstd2: f(N),
        fch: f(N * F), fcg: f(N * F), res3: f(N * C),
      })),
      lnf: f(N * C), meanf: f(N), rstdf: f(N), logits: f(N * V), dlogits: f(N * V),
    };
    const half = hd / 2, base = this.cfg.ropeBase ?? 10000;
    this.cos = f(T * half);
    this.sin = f(T * half);
    for (let t = 0; t < T; t++)
      for (let i = 0; i < half; i++) {
        const a = t / Math.pow(base, (2 * i) / hd);
        this.cos[t * half + i] = Math.cos(a);
        this.sin[t * half + i] = Math.sin(a);
      }
    this.shape = { B, T };
  }

  /** Logits [B, T, V] (a view, valid until the next call). */
  forward(tokens, B, T) {
    this.#prepare(B, T);
    const { C, F, V, L, H, hd } = this, N = B * T, a = this.acts, rot = this.cfg.encoding === 'rope';
    const wte = this.P('wte');
    for (let n = 0; n < N; n++) a.x0.set(wte.subarray(tokens[n] * C, tokens[n] * C + C), n * C);
    let x = a.x0;
    const scale = 1 / Math.sqrt(hd);
    for (let l = 0; l < L; l++) {
      const la = a.layer[l], h = (s) => this.P(`h${l}.${s}`);
      layernorm(la.ln1, la.mean1, la.rstd1, x, h('ln1.weight'), h('ln1.bias'), N, C);
      linear(la.qkv, la.ln1, h('attn.qkv.weight'), h('attn.qkv.bias'), N, C, 3 * C);
      // split into [B, H, T, hd]
      for (let b = 0; b < B; b++)
        for (let t = 0; t < T; t++)
          for (let hh = 0; hh < H; hh++) {
            const src = (b * T + t) * 3 * C + hh * hd, dst = ((b * H + hh) * T + t) * hd;
            for (let c = 0; c < hd; c++) {
              la.q[dst + c] = la.qkv[src + c];
              la.k[dst + c] = la.qkv[src + C + c];
              la.v[dst + c] = la.qkv[src + 2 * C + c];
            }
          }
      if (rot) {
        rope(la.q, B * H * T, T, hd, this.cos, this.sin, 1);
        rope(la.k, B * H * T, T, hd, this.cos, this.sin, 1);
      }
      for (let bh = 0; bh < B * H; bh++) {
        const b = Math.floor(bh / H), hh = bh % H, qo = bh * T * hd, P = la.att.subarray(bh * T * T, (bh + 1) * T * T);
        for (let i = 0; i < T; i++) {
          let max = -Infinity;
          for (let j = 0; j <= i; j++) {
            let s = 0;
            for (let c = 0; c < hd; c++) s += la.q[qo + i * hd + c] * la.k[qo + j * hd + c];
            P[i * T + j] = s * scale;
            if (P[i * T + j] > max) max = P[i * T + j];
          }
          let sum = 0;
          for (let j = 0; j <= i; j++) sum += P[i * T + j] = Math.exp(P[i * T + j] - max);
          for (let j = 0; j <= i; j++) P[i * T + j] /= sum;
          const o = (b * T + i) * C + hh * hd;
          for (let c = 0; c < hd; c++) la.atty[o + c] = 0;
          for (let j = 0; j <= i; j++) {
            const p = P[i * T + j];
            for (let c = 0; c < hd; c++) la.atty[o + c] += p * la.v[qo + j * hd + c];
          }
        }
      }
      linear(la.res2, la.atty, h('attn.proj.weight'), h('attn.proj.bias'), N, C, C);
      for (let i = 0; i < N * C; i++) la.res2[i] += x[i];
      layernorm(la.ln2, la.mean2, la.rstd2, la.res2, h('ln2.weight'), h('ln2.bias'), N, C);
      linear(la.fch, la.ln2, h('mlp.fc.weight'), h('mlp.fc.bias'), N, C, F);
      for (let i = 0; i < N * F; i++) {
        const u = la.fch[i];
        la.fcg[i] = 0.5 * u * (1 + Math.tanh(GELU_S * (u + GELU_C * u * u * u)));
      }
      linear(la.res3, la.fcg, h('mlp.proj.weight'), h('mlp.proj.bias'), N, F, C);
      for (let i = 0; i < N * C; i++) la.res3[i] += la.res2[i];
      x = la.res3;
    }
    layernorm(a.lnf, a.meanf, a.rstdf, x, this.P('lnf.weight'), this.P('lnf.bias'), N, C);
    linear(a.logits, a.lnf, this.P('lm_head.weight'), null, N, C, V);
    return a.logits;
  }

  /** Mean cross-entropy over targets >= 0; with grad, d(loss)/d(logits) into acts.dlogits. */
  #loss(targets, N, grad) {
    const { V } = this, a = this.acts;
    let loss = 0, scored = 0;
    for (let n = 0; n < N; n++) if (targets[n] >= 0) scored++;
    a.dlogits.fill(0);
    for (let n = 0; n < N; n++) {
      const t = targets[n];
      if (t < 0) continue;
      let max = -Infinity;
      for (let v = 0; v < V; v++) max = Math.max(max, a.logits[n * V + v]);
      let z = 0;
      for (let v = 0; v < V; v++) z += Math.exp(a.logits[n * V + v] - max);
      loss += Math.log(z) - (a.logits[n * V + t] - max);
      if (grad) {
        for (let v = 0; v < V; v++) a.dlogits[n * V + v] = Math.exp(a.logits[n * V + v] - max) / z / scored;
        a.dlogits[n * V + t] -= 1 / scored;
      }
    }
    return scored ? loss / scored : 0;
  }

  evaluate(tokens, targets, B, T) {
    this.forward(tokens, B, T);
    return this.#loss(targets, B * T, false);
  }

  /** One AdamW step (clip at norm 1); returns {loss, gradNorm} before the update. */
  trainStep(tokens, targets, B, T, lr) {
    this.forward(tokens, B, T);
    const loss = this.#loss(targets, B * T, true);
    this.g.fill(0);
    this.#backward(tokens, B, T);
    let sq = 0;
    for (let i = 0; i < this.g.length; i++) sq += this.g[i] * this.g[i];
    const gradNorm = Math.sqrt(sq);
    if (gradNorm > ADAM.clip) for (let i = 0; i < this.g.length; i++) this.g[i] *= ADAM.clip / gradNorm;
    this.step++;
    const bc1 = 1 - ADAM.beta1 ** this.step, bc2 = 1 - ADAM.beta2 ** this.step;
    for (const t of this.tensors) {
      const wd = t.decay ? ADAM.weightDecay : 0;
      for (let i = t.offset; i < t.offset + t.size; i++) {
        const g = this.g[i];
        this.m[i] = ADAM.beta1 * this.m[i] + (1 - ADAM.beta1) * g;
        this.v[i] = ADAM.beta2 * this.v[i] + (1 - ADAM.beta2) * g * g;
        this.p[i] -= lr * ((this.m[i] / bc1) / (Math.sqrt(this.v[i] / bc2) + ADAM.eps) + wd * this.p[i]);
      }
    }
    return { loss, gradNorm };
  }

  #backward(tokens, B, T) {
    const { C, F, V, L, H, hd } = this, N = B * T, a = this.acts, rot = this.cfg.encoding === 'rope';
    const scale = 1 / Math.sqrt(hd), f = (n) => new Float32Array(n);
    const dres = f(N * C), dln = f(N * C), datty = f(N * C), dbuf = f(N * F), dqkv = f(N * 3 * C);
    const dq = f(N * C), dk = f(N * C), dv = f(N * C), dP = f(T * T);
    linearBackward(dln, this.G('lm_head.weight'), null, a.dlogits, a.lnf, this.P('lm_head.weight'), N, C, V);
    layernormBackward(dres, this.G('lnf.weight'), this.G('lnf.bias'), dln, a.layer[L - 1].res3, this.P('lnf.weight'),
      a.meanf, a.rstdf, N, C);
    for (let l = L - 1; l >= 0; l--) {
      const la = a.layer[l], x = l === 0 ? a.x0 : a.layer[l - 1].res3;
      const p = (s) => this.P(`h${l}.${s}`), g = (s) => this.G(`h${l}.${s}`);
      // MLP
      linearBackward(dbuf, g('mlp.proj.weight'), g('mlp.proj.bias'), dres, la.fcg, p('mlp.proj.weight'), N, F, C);
      for (let i = 0; i < N * F; i++) {
        const u = la.fch[i], th = Math.tanh(GELU_S * (u + GELU_C * u * u * u));
        dbuf[i] *= 0.5 * (1 + th) + 0.5 * u * (1 - th * th) * GELU_S * (1 + 3 * GELU_C * u * u);
      }
      linearBackward(dln, g('mlp.fc.weight'), g('mlp.fc.bias'), dbuf, la.ln2, p('mlp.fc.weight'), N, C, F);
      layernormBackward(dres, g('ln2.weight'), g('ln2.bias'), dln, la.res2, p('ln2.weight'), la.mean2, la.rstd2, N, C);
      // attention
      linearBackward(datty, g('attn.proj.weight'), g('attn.proj.bias'), dres, la.atty, p('attn.proj.weight'), N, C, C);
      for (let bh = 0; bh < B * H; bh++) {
        const b = Math.floor(bh / H), hh = bh % H, qo = bh * T * hd, P = la.att.subarray(bh * T * T, (bh + 1) * T * T);
        const dyRow = (i) => (b * T + i) * C + hh * hd;
        for (let i = 0; i < T; i++) {
          // dP = dy v^T, then dS = P (dP - sum_j P dP) * scale
          let dot = 0;
          for (let j = 0; j <= i; j++) {
            let s = 0;
            for (let c = 0; c < hd; c++) s += datty[dyRow(i) + c] * la.v[qo + j * hd + c];
            dP[i * T + j] = s;
            dot += s * P[i * T + j];
          }
          for (let j = 0; j <= i; j++) dP[i * T + j] = P[i * T + j] * (dP[i * T + j] - dot) * scale;
        }
        dq.fill(0, qo, qo + T * hd);
        dk.fill(0, qo, qo + T * hd);
        dv.fill(0, qo, qo + T * hd);
        for (let i = 0; i < T; i++)
          for (let j = 0; j <= i; j++) {
            const pij = P[i * T + j], ds = dP[i * T + j], io = qo + i * hd, jo = qo + j * hd, yo = dyRow(i);
            for (let c = 0; c < hd; c++) {
              dv[jo + c] += pij * datty[yo + c];
              dk[jo + c] += ds * la.q[io + c];
              dq[io + c] += ds * la.k[jo + c];
            }
          }
      }
      if (rot) {
        rope(dq, B * H * T, T, hd, this.cos, this.sin, -1);
        rope(dk, B * H * T, T, hd, this.cos, this.sin, -1);
      }
      for (let b = 0; b < B; b++)
        for (let t = 0; t < T; t++)
          for (let hh = 0; hh < H; hh++) {
            const dst = (b * T + t) * 3 * C + hh * hd, src = ((b * H + hh) * T + t) * hd;
            for (let c = 0; c < hd; c++) {
              dqkv[dst + c] = dq[src + c];
              dqkv[dst + C + c] = dk[src + c];
              dqkv[dst + 2 * C + c] = dv[src + c];
            }
          }
      linearBackward(dln, g('attn.qkv.weight'), g('attn.qkv.bias'), dqkv, la.ln1, p('attn.qkv.weight'), N, C, 3 * C);
      layernormBackward(dres, g('ln1.weight'), g('ln1.bias'), dln, x, p('ln1.weight'), la.mean1, la.rstd1, N, C);
    }
    const gwte = this.G('wte');
    for (let n = 0; n < N; n++) for (let c = 0; c < C; c++) gwte[tokens[n] * C + c] += dres[n * C + c];
  }
}
