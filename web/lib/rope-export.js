// What users ask peers for, from a ropeFromConfig result: the model's RoPE as HF
// `rope_parameters` JSON, and a few lines of PyTorch that rebuild each layer type's
// inv_freq and attention scaling from those parameters (HF's modeling_rope_utils
// formulas, written out). Run as a script, the PyTorch prints the numbers as JSON.

import { py, codeOf } from './scaling.js';

const ident = (s) => s.replace(/[^A-Za-z0-9_]/g, '_');

// HF's dict as a config.json carries it: no keys posenc adds for its core.
function hfDict(lt) {
  const d = { rope_type: lt.ropeType, ...lt.ropeParameters };
  delete d.max_position_embeddings;
  if (d.partial_rotary_factor === 1) delete d.partial_rotary_factor;
  return d;
}

/** The rope_parameters of a ropeFromConfig result, as HF's newest config classes save them. */
export function ropeParametersJson(r) {
  const rope = r.layerTypes.filter((l) => l.rope);
  if (!rope.length) return { rope_parameters: null };
  const keyed = new Map();
  for (const lt of rope) keyed.set(r.family?.id === 'deepseek_v4' ? (lt.layerType === 'sliding_attention' ? 'main' : 'compress') : lt.layerType, hfDict(lt));
  const dicts = [...keyed.values()].map((d) => JSON.stringify(d));
  const out = keyed.size === 1 || dicts.every((d) => d === dicts[0]) ? [...keyed.values()][0] : Object.fromEntries(keyed);
  const json = { rope_parameters: out };
  // Where the family marks RoPE per layer (SmolLM3, Llama 4), the layers without it: no_rope_layers, 1 = RoPE.
  const nope = r.layerTypes.filter((l) => !l.rope).flatMap((l) => l.layers);
  if (nope.length && ['smollm3', 'llama4'].includes(r.family?.id)) {
    const n = r.layerTypes.reduce((a, l) => a + l.layers.length, 0);
    json.no_rope_layers = Array.from({ length: n }, (_, i) => (nope.includes(i) ? 0 : 1));
  }
  return json;
}

// The lines that compute `inv_freq` and `attention_scaling` for one layer type (HF's formulas, per type in scaling.js).
const body = (lt, seqLen) => codeOf(lt.ropeType).pytorch(lt.ropeParameters, { rotaryDim: lt.rotaryDim, headDim: lt.headDim, seqLen });

/** A few lines of PyTorch (float64) that rebuild each layer type's inv_freq and attention scaling. */
export function pytorchSnippet(r, { model = r.modelType } = {}) {
  const out = ['# RoPE of ' + (model || 'a pasted config') + ', per layer type, as HF transformers computes it (float64).',
    '# attention_scaling multiplies cos and sin; softmax_mscale2 (DeepSeek) multiplies the softmax scale 1/sqrt(head_dim).',
    'import json', 'import math', 'import torch', '', 'ROPE = {}'];
  for (const lt of r.layerTypes) {
    if (!lt.rope) {
      out.push('', `# ${lt.name}: layers ${lt.layers.join(', ')} have no RoPE (NoPE)`);
      continue;
    }
    const fn = `rope_${ident(lt.name)}`;
    out.push('', '', `def ${fn}():`, `    # ${lt.name}: rope_type ${lt.ropeType}, ${lt.layout} layout, rotary dim ${lt.rotaryDim} of head dim ${lt.headDim}` +
      (lt.slice === 'trailing' ? ' (the trailing dims rotate)' : ''));
    for (const line of body(lt, r.seqLen)) out.push(...line.split('\n').map((l) => `    ${l}`));
    out.push(`    softmax_mscale2 = ${py(lt.softmaxScale)}` + (lt.softmaxScale !== 1 ? '  # (0.1 * mscale_all_dim * ln(factor) + 1) ** 2' : ''),
      '    return inv_freq, attention_scaling, softmax_mscale2', '', '', `ROPE[${JSON.stringify(lt.name)}] = ${fn}()`);
  }
  out.push('', "if __name__ == '__main__':",
    '    print(json.dumps({k: {"inv_freq": v[0].tolist(), "attention_scaling": float(v[1]), "softmax_mscale2": float(v[2])} for k, v in ROPE.items()}))', '');
  return out.join('\n');
}
