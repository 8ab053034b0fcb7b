// "Your model's RoPE": pick a shipped public config.json or paste one; pe.ropeFromConfig
// (HF's rules per model family, the C++ core's frequencies) says per layer type what each
// rotary pair does. The plots are in your-rope-plots.js; every scale and bound shown here
// carries its one-line explanation (rope-words.js) on hover and on keyboard focus. The model
// exports as HF rope_parameters JSON and as PyTorch (web/lib/rope-export.js).
// This is the section's controller: the model and layer type (the page's state, in its URL), the config it loads
// or is pasted, and what pe.ropeFromConfig makes of it. The DOM is your-rope-view.js's.
import { SHIPPED_CONFIGS } from '../../configs/index.js';
import { loadShippedConfig } from '../../configs/load.js';
import { ropeParametersJson, pytorchSnippet } from '../../lib/rope-export.js';
import { createRopeView } from './your-rope-view.js';

export { decayBound, ropeNotice } from './your-rope-plots.js';

export function createYourRope(pe, section, state, { onChange = () => {} } = {}) {
  let result = null, decay = null, pasted = null, token = 0, exported = null;
  let resultModel = null; // the config `result` was computed from (state.ropeModel changes first, while its config loads)
  const view = createRopeView(section, {
    model: state.ropeModel,
    onModel(id) {
      state.ropeModel = id;
      state.ropeLayerType = 0;
      onChange();
      pick(state.ropeModel);
    },
    onLayerType(i) {
      state.ropeLayerType = i;
      onChange();
      draw();
    },
    onPaste(text) {
      pasted = text;
      token++;
      if (analyse(pasted, 'pasted')) {
        state.ropeModel = 'pasted';
        view.setModel('pasted');
        state.ropeLayerType = view.layerType();
        onChange();
      }
    },
  });

  // An error leaves nothing of the previous model on screen, and the picker names what failed.
  function fail(e, model) {
    result = null;
    decay = null;
    exported = null;
    resultModel = null;
    view.fail(e);
    if (model === 'pasted' && view.model() !== 'pasted') {
      view.setModel('pasted');
      state.ropeModel = 'pasted';
      state.ropeLayerType = 0;
      onChange();
    }
  }

  function show(r, model) {
    result = r;
    if (state.ropeLayerType >= r.layerTypes.length) state.ropeLayerType = 0;
    exported = { ropeParameters: ropeParametersJson(r), pytorch: pytorchSnippet(r, { model: model === 'pasted' ? r.modelType : model }) };
    view.show(r, state.ropeLayerType, exported);
    draw();
  }

  function draw() {
    if (!result) return;
    decay = view.draw(result.layerTypes[state.ropeLayerType] ?? result.layerTypes[0], result);
  }

  function analyse(config, model) {
    try {
      const r = pe.ropeFromConfig(config);
      resultModel = model;
      show(r, model);
      return true;
    } catch (e) {
      fail(e, model);
      return false;
    }
  }

  async function pick(id) {
    const mine = ++token;
    if (id === 'pasted') {
      if (pasted !== null) analyse(pasted, 'pasted');
      return;
    }
    try {
      const cfg = await loadShippedConfig(id);
      if (mine !== token) return;
      view.setText(JSON.stringify(cfg, null, 1));
      analyse(cfg, id);
    } catch (e) {
      fail(e, id);
    }
  }

  if (state.ropeModel === 'pasted') { // the pasted text is not in the URL
    state.ropeModel = SHIPPED_CONFIGS[0].id;
    view.setModel(state.ropeModel);
    view.say('The link was made from a pasted config, which links do not carry: paste it again.');
  }
  pick(state.ropeModel);
  return {
    draw,
    get result() { return result; },
    data: () => result && {
      model: resultModel, seqLen: result.seqLen, contextLength: result.contextLength, originalContext: result.originalContext,
      extendedContext: result.extendedContext, contexts: result.contexts, family: result.family, notes: result.notes,
      layerTypes: result.layerTypes.map((lt) => ({ name: lt.name, layerType: lt.layerType, layers: lt.layers, rope: lt.rope, ropeType: lt.ropeType,
        theta: lt.theta, factor: lt.factor, headDim: lt.headDim, rotaryDim: lt.rotaryDim, layout: lt.layout, slice: lt.slice, window: lt.window,
        cosSinScale: lt.cosSinScale, softmaxScale: lt.softmaxScale, queryScale: lt.queryScale, mrope: lt.mrope, counts: lt.counts, pairs: lt.pairs })),
      ropeParameters: exported?.ropeParameters, pytorch: exported?.pytorch,
      decay,
    },
  };
}
