// The tiny transformer: create, train, evaluate, save and load, on top of
// the wasm module. A Model owns one C++ object; call delete() when done (a
// FinalizationRegistry frees forgotten ones and says so once).
import * as v from './validate.js';
import { scope, check } from './memory.js';
import { normaliseScaling } from './scaling.js';
import { outputArray, copyInto } from './encodings.js';
import { ENCODING_INFO, CONFIG_SCHEMA, OPTIMIZER_SCHEMA } from '../wasm/registry.js';

// The encoding registry and the config schema come from the C++ module (generated at build
// time from its embind exports: scripts/registry.js); no list of names is written here.
export const ENCODINGS = Object.freeze(ENCODING_INFO.map((e) => e.name));
export { ENCODING_INFO, CONFIG_SCHEMA, OPTIMIZER_SCHEMA };
/** The AdamW settings train() and Model.setOptimizer accept (defaults: the experiment's, from C++). */
export const OPTIMIZER_KEYS = Object.freeze(OPTIMIZER_SCHEMA.map((f) => f.name));
const MAX_T = 16384;
/** How save() can store the weights, in posenc::WeightFormat's order (checkpoint.hpp): 'float16' is the default. */
export const WEIGHT_FORMATS = Object.freeze(['float32', 'float16', 'int8']);
const OVERFLOW_HINT = 'the model or its ropeScaling (e.g. attention_factor) drives activations past float32';
const required = (targets) => {
  if (targets === null) throw new TypeError('targets must be an Int32Array or an array of integers (got null)');
  return targets;
};
const CONFIG_KEYS = CONFIG_SCHEMA.map((f) => f.name);
const INT32 = [-(2 ** 31), 2 ** 31 - 1];
const fieldDefault = (f) => (f.required ? undefined : f.type === 'choice' ? f.choices[f.default] : f.default);

// JS config -> one double per schema field (bindings_model.cpp). A field's range is checked
// for the encodings it applies to (f.encodings, as in C++); elsewhere it only has to be a number.
function configValues(o) {
  const encoding = v.oneOf('encoding', o.encoding ?? fieldDefault(CONFIG_SCHEMA[0]), ENCODINGS);
  return Float64Array.from(CONFIG_SCHEMA, (f) => {
    const x = o[f.name] ?? fieldDefault(f);
    const applies = f.encodings.includes(encoding);
    switch (f.type) {
      case 'choice': return f.choices.indexOf(v.oneOf(f.name, x, f.choices));
      case 'int': return applies ? v.integer(f.name, x, f.min, f.max) : v.integer(f.name, x, ...INT32);
      case 'uint64': return v.integer(f.name, x, f.min, f.max);
      default: return applies ? v.number(f.name, x, f) : v.number(f.name, x);
    }
  });
}

function configFromValues(values) {
  return Object.fromEntries(CONFIG_SCHEMA.map((f, i) => [f.name, f.type === 'choice' ? f.choices[values[i]] : values[i]]));
}

// Every live or deleted Model of any loaded module (train() checks its argument with it).
const allModels = new WeakSet();
export const isModel = (x) => allModels.has(x);

// A copy of checkpoint bytes, made from the internal length (an own `length`
// property cannot lie about it); a detached buffer reads as empty.
function checkpointBytes(bytes) {
  let copy = null;
  try {
    if (bytes instanceof Uint8Array) copy = new Uint8Array(bytes);
    else if (bytes instanceof ArrayBuffer) copy = bytes.byteLength ? new Uint8Array(bytes.slice(0)) : new Uint8Array(0);
  } catch {} // a revoked Proxy
  if (!copy) throw new TypeError(`bytes must be a Uint8Array or ArrayBuffer (got ${v.show(bytes)})`);
  return copy;
}

export function createModelApi(mod) {
  const registry = new FinalizationRegistry((handle) => {
    mod.modelDelete(handle);
    if (!registry.warned) {
      registry.warned = true;
      console.warn('posenc: a Model was garbage-collected without delete(); its memory was freed. Call model.delete() when done.');
    }
  });

  const readHandle = (m, p) => mod.HEAPU32[p / 4];

  class Model {
    #handle;
    #config;
    constructor(handle) {
      this.#handle = handle;
      allModels.add(this);
      registry.register(this, handle, this);
      this.#config = scope(mod, (m) => {
        const n = CONFIG_SCHEMA.length, p = m.put('f64', n);
        check(mod, mod.modelConfig(handle, p));
        return Object.freeze(configFromValues(m.take('f64', p, n)));
      });
      /** Loss, accuracy and gradient norm of the last trainStep. */
      this.lastStep = null;
    }

    #live() {
      if (!this.#handle) throw new TypeError('this Model has been deleted');
      return this.#handle;
    }

    get config() { return this.#config; }
    get numParameters() { return mod.modelNumParameters(this.#live()); }
    /** AdamW updates done so far. */
    get step() { return mod.modelStep(this.#live()); }
    /** The longest sequence length trained on (0 before training). */
    get trainedLength() { return mod.modelTrainedLength(this.#live()); }

    // Options first, then the arrays (copied while checked), so no caller code
    // runs between a check and the use of what it checked. `targets` null: forward only.
    #batchArgs(tokens, targets, opts, what, keys) {
      const o = v.options(`${what} options`, opts);
      v.knownKeys(`${what} options`, o, keys);
      const batch = v.integer('batch', o.batch ?? 1, 1, 4096);
      const length = v.integer('length', o.length, 1, MAX_T);
      const n = v.elementBudget(`${what}(batch*length)`, batch * length);
      const vocab = this.#config.vocabSize;
      const toks = v.intArray('tokens', tokens, n, 0, vocab - 1);
      const tgts = targets === null ? null : v.intArray('targets', targets, n, -1, vocab - 1);
      return { o, batch, length, n, toks, tgts };
    }

    /** One AdamW step on a batch. Returns the loss before the update. */
    trainStep(tokens, targets, opts) {
      const h = this.#live();
      const { o, batch, length, n, toks, tgts } = this.#batchArgs(tokens, required(targets), opts, 'trainStep', ['batch', 'length', 'lr']);
      const lr = v.number('lr', o.lr ?? 1e-3, { min: 0, max: 10 });
      const r = scope(mod, (m) => {
        const pt = m.put('i32', n, toks), pg = m.put('i32', n, tgts), out = m.put('f64', 7);
        check(mod, mod.modelTrainStep(h, pt, pg, batch, length, lr, out));
        return m.take('f64', out, 5);
      });
      this.lastStep = { loss: r[0], accuracy: r[1], scored: r[2], gradNorm: r[4] };
      if (!Number.isFinite(r[0])) throw new RangeError(`trainStep: the loss is ${r[0]} (training diverged); lower lr`);
      return r[0];
    }

    #run(tokens, targets, opts, what) {
      const h = this.#live();
      const { o, batch, length, n, toks, tgts } = this.#batchArgs(tokens, targets, opts, what,
        ['batch', 'length', 'attention', 'attentionLayer', 'attentionOut', 'attentionPool', 'ropeScaling']);
      const wantAttention = v.boolean('attention', o.attention ?? false);
      const cfg = this.#config;
      // attentionLayer: only that layer's maps ([heads, length, length]); the other layers run without
      // (and, below the last layer, so does the last layer's unscored part).
      const layer = o.attentionLayer == null ? -1 : v.integer('attentionLayer', o.attentionLayer, 0, cfg.layers - 1);
      if (layer >= 0 && !wantAttention) throw new RangeError('attentionLayer needs attention: true');
      const nMaps = (layer >= 0 ? 1 : cfg.layers) * cfg.heads * length * length;
      if (wantAttention) v.elementBudget(`attention maps (${layer >= 0 ? '' : 'layers*'}heads*length^2)`, nMaps);
      // attentionOut: the caller's Float32Array for the maps, reused across calls (a fresh array
      // per call costs more to allocate and zero than the copy itself).
      if (o.attentionOut != null && !wantAttention) throw new RangeError('attentionOut needs attention: true');
      const mapsInto = o.attentionOut == null ? null : outputArray('attentionOut', o.attentionOut, nMaps);
      // attentionPool: px, the maps pooled to [px, px] pictures in the module (and their peaks), not copied out
      if (o.attentionPool != null && !wantAttention) throw new RangeError('attentionPool needs attention: true');
      if (o.attentionPool != null && mapsInto) throw new RangeError('attentionPool and attentionOut exclude each other');
      const px = o.attentionPool == null ? 0 : v.integer('attentionPool', o.attentionPool, 1, length);
      const scaling = o.ropeScaling == null ? null : normaliseScaling(o.ropeScaling, (cfg.rotaryDim || cfg.dModel / cfg.heads) / 2);
      if (scaling && cfg.encoding !== 'rope') throw new RangeError(`ropeScaling only applies to a 'rope' model (this one is '${cfg.encoding}')`);
      return scope(mod, (m) => {
        const pt = m.put('i32', n, toks), pg = tgts === null ? 0 : m.put('i32', n, tgts), out = m.put('f64', 7);
        const ps = scaling ? m.put('f64', scaling.slots.length, scaling.slots) : 0;
        const lf = scaling?.longFactor ? m.put('f64', scaling.longFactor.length, scaling.longFactor) : 0;
        const sf = scaling?.shortFactor ? m.put('f64', scaling.shortFactor.length, scaling.shortFactor) : 0;
        const count = scaling?.longFactor?.length ?? scaling?.shortFactor?.length ?? 0;
        check(mod, mod.modelForward(h, pt, pg, batch, length, ps, lf, sf, count, wantAttention, layer, out));
        const r = m.take('f64', out, 7);
        const logits = r[5] ? m.take('f32', r[5], n * cfg.vocabSize) : null;
        if (px && r[6]) {
          const count = nMaps / (length * length), pp = m.put('f32', count * px * px), pk = m.put('f32', count);
          check(mod, mod.poolAttention(r[6], count, length, px, pp, pk));
          return { r, logits, maps: null, pool: { px, maps: m.take('f32', pp, count * px * px), peaks: m.take('f32', pk, count) } };
        }
        const maps = !r[6] ? null : mapsInto ? copyInto(mod, r[6], mapsInto) : m.take('f32', r[6], nMaps);
        return { r, maps, logits, pool: null };
      });
    }

    /**
     * Logits [batch, length, vocab] and, with attention: true, the maps [layers, heads, length, length] of
     * sequence 0 ([heads, length, length] of layer attentionLayer when given; written into attentionOut when given).
     */
    forward(tokens, opts) {
      const { logits, maps, pool } = this.#run(tokens, null, opts, 'forward');
      return { logits: v.finiteResult('logits', logits, OVERFLOW_HINT), attention: maps, attentionPool: pool };
    }

    /** Mean loss and accuracy over scored targets (-1 = not scored). */
    evaluate(tokens, targets, opts) {
      const { r, maps, pool } = this.#run(tokens, required(targets), opts, 'evaluate');
      v.finiteResult('loss', r.subarray(0, 1), OVERFLOW_HINT);
      return { loss: r[0], accuracy: r[1], scored: r[2], correct: r[3], attention: maps, attentionPool: pool };
    }

    /** Per position 0..length-1: 0 trained, 1 never trained, 2 past the learned table. */
    positionStatus(length) {
      const h = this.#live();
      v.integer('length', length, 0, MAX_T);
      return scope(mod, (m) => {
        const out = m.put('i32', Math.ceil(length / 4));
        check(mod, mod.modelPositionStatus(h, length, out));
        return mod.HEAPU8.slice(out, out + length);
      });
    }

    /**
     * A checkpoint: header, config, weights and checksum. `weights`: 'float16' (the default, format
     * version 3: half the bytes), 'float32' (bit-exact weights, versions 1 and 2) or 'int8' (version 3:
     * each block's four matrices as int8 with a float16 scale per output column, the rest float16; about
     * 0.55x the bytes of float16, as the shipped checkpoints are stored).
     */
    save(opts) {
      const h = this.#live();
      const o = v.options('save options', opts);
      v.knownKeys('save options', o, ['weights']);
      const weights = o.weights == null ? -1 : WEIGHT_FORMATS.indexOf(v.oneOf('weights', o.weights, WEIGHT_FORMATS));
      return scope(mod, (m) => {
        const out = m.put('i32', 2);
        check(mod, mod.modelSave(h, weights, out, out + 4));
        const address = mod.HEAPU32[out / 4], size = mod.HEAPU32[out / 4 + 1];
        const bytes = mod.HEAPU8.slice(address, address + size);
        mod._free(address);
        return bytes;
      });
    }

    /** AdamW settings used by trainStep: { beta1, beta2, eps, weightDecay, gradClip }. */
    get optimizer() {
      const h = this.#live();
      return scope(mod, (m) => {
        const n = OPTIMIZER_SCHEMA.length, p = m.put('f64', n);
        check(mod, mod.modelOptimizer(h, p));
        const values = m.take('f64', p, n);
        return Object.freeze(Object.fromEntries(OPTIMIZER_SCHEMA.map((f, i) => [f.name, values[i]])));
      });
    }

    /** Changes some AdamW settings (the others stay); each is checked against its range first. */
    setOptimizer(opts) {
      const h = this.#live();
      const o = v.options('setOptimizer options', opts);
      v.knownKeys('setOptimizer options', o, OPTIMIZER_KEYS);
      const now = this.optimizer;
      const values = Float64Array.from(OPTIMIZER_SCHEMA, (f) => v.number(f.name, o[f.name] ?? now[f.name], f));
      scope(mod, (m) => check(mod, mod.modelSetOptimizer(h, m.put('f64', values.length, values))));
    }

    /** Frees the C++ model. Safe to call twice. */
    delete() {
      if (!this.#handle) return;
      registry.unregister(this);
      mod.modelDelete(this.#handle);
      this.#handle = 0;
    }
  }

  function newHandle(fill) {
    return scope(mod, (m) => {
      const out = m.put('i32', 1);
      fill(m, out);
      return readHandle(m, out);
    });
  }

  function createModel(opts) {
    const o = v.options('createModel options', opts);
    v.knownKeys('createModel options', o, CONFIG_KEYS);
    const values = configValues(o);
    return new Model(newHandle((m, out) => check(mod, mod.modelCreate(m.put('f64', values.length, values), out))));
  }

  const POLICIES = CONFIG_SCHEMA.find((f) => f.name === 'learnedPolicy').choices;
  // Checkpoint bytes copied into the heap for f(address, size).
  const withBytes = (m, copy, f) => {
    const p = m.put('i32', Math.ceil(copy.length / 4));
    mod.HEAPU8.set(copy, p);
    return f(p, copy.length);
  };

  /** A model from checkpoint bytes; `learnedPolicy` runs it with another out-of-table policy than saved. */
  function loadModel(bytes, opts) {
    const copy = checkpointBytes(bytes);
    const o = v.options('loadModel options', opts);
    v.knownKeys('loadModel options', o, ['learnedPolicy']);
    const policy = o.learnedPolicy == null ? -1 : POLICIES.indexOf(v.oneOf('learnedPolicy', o.learnedPolicy, POLICIES));
    return new Model(newHandle((m, out) => withBytes(m, copy, (p, n) => check(mod, mod.modelLoad(p, n, policy, out)))));
  }

  /**
   * What checkpoint bytes hold, with every check loadModel makes (RangeError saying what is wrong),
   * without building the model: { config, trainedLength, version, parameters }.
   */
  function readCheckpoint(bytes) {
    const copy = checkpointBytes(bytes);
    return scope(mod, (m) => {
      const n = CONFIG_SCHEMA.length, values = m.put('f64', n), meta = m.put('f64', 4);
      withBytes(m, copy, (p, size) => check(mod, mod.checkpointInfo(p, size, values, meta)));
      const [trainedLength, version, parameters, weights] = m.take('f64', meta, 4);
      return Object.freeze({ config: Object.freeze(configFromValues(m.take('f64', values, n))), trainedLength, version, parameters,
        weights: WEIGHT_FORMATS[weights] });
    });
  }

  return { createModel, loadModel, readCheckpoint, Model };
}
