// The tiny model's parameters outside the wasm module: read from a version-1
// checkpoint (cpp/src/model/checkpoint.cpp: 92 header bytes, then the float32
// weights) and cut into named tensors in the core's layout order
// (Model::Impl::build_layout), so the plain-JS and tfjs models compute with
// exactly our weights.
const HEADER_BYTES = 92;

/** Tensor table of a RoPE / NoPE model: [{name, shape, offset, size, decay}]. */
export function layout({ layers, dModel: C, mlpRatio, vocabSize: V, encoding }) {
  if (!['rope', 'none'].includes(encoding)) throw new RangeError(`the benchmark models support encoding 'rope' and 'none' (got '${encoding}')`);
  const F = mlpRatio * C;
  const tensors = [];
  let offset = 0;
  const add = (name, shape, decay = false) => {
    const size = shape.reduce((a, b) => a * b, 1);
    tensors.push({ name, shape, offset, size, decay });
    offset += size;
  };
  add('wte', [V, C]);
  for (let l = 0; l < layers; l++) {
    add(`h${l}.ln1.weight`, [C]);
    add(`h${l}.ln1.bias`, [C]);
    add(`h${l}.attn.qkv.weight`, [C, 3 * C], true);
    add(`h${l}.attn.qkv.bias`, [3 * C]);
    add(`h${l}.attn.proj.weight`, [C, C], true);
    add(`h${l}.attn.proj.bias`, [C]);
    add(`h${l}.ln2.weight`, [C]);
    add(`h${l}.ln2.bias`, [C]);
    add(`h${l}.mlp.fc.weight`, [C, F], true);
    add(`h${l}.mlp.fc.bias`, [F]);
    add(`h${l}.mlp.proj.weight`, [F, C], true);
    add(`h${l}.mlp.proj.bias`, [C]);
  }
  add('lnf.weight', [C]);
  add('lnf.bias', [C]);
  add('lm_head.weight', [C, V], true);
  return { tensors, count: offset };
}

/** {params: Float32Array, tensors, get(name) -> subarray} from float32 checkpoint bytes (save({ weights: 'float32' })) and the model's config. */
export function weightsFromCheckpoint(bytes, config) {
  const { tensors, count } = layout(config);
  const stored = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(HEADER_BYTES - 8, true);
  if (stored !== count) throw new RangeError(`checkpoint holds ${stored} parameters, the benchmark layout expects ${count}`);
  const params = new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset + HEADER_BYTES, count * 4);
  for (let i = 0; i < count; i++) params[i] = view.getFloat32(i * 4, true);
  const byName = new Map(tensors.map((t) => [t.name, t]));
  return {
    params,
    tensors,
    get(name, from = params) {
      const t = byName.get(name);
      if (!t) throw new RangeError(`no tensor ${name}`);
      return from.subarray(t.offset, t.offset + t.size);
    },
  };
}
