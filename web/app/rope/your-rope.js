// "Your model's RoPE": pick a shipped public config.json or paste one; pe.ropeFromConfig
// (HF's rules per model family, the C++ core's frequencies) says per layer type what each
// rotary pair does. The plots are in your-rope-plots.js; every scale and bound shown here
// carries its one-line explanation (rope-words.js) on hover and on keyboard focus. The model
// exports as HF rope_parameters JSON and as PyTorch (web/lib/rope-export.js).
import { SHIPPED_CONFIGS } from '../../configs/index.js';
import { loadShippedConfig } from '../../configs/load.js';
import { ropeParametersJson, pytorchSnippet } from '../../lib/rope-export.js';
import { count, context, TERMS } from './rope-words.js';
import { drawWavelengths, drawScales, drawDecay, drawNothing, ropeNotice, AXIS_WORDS } from './your-rope-plots.js';

export { decayBound, ropeNotice } from './your-rope-plots.js';

function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}
// A term with its explanation: hover shows the title; focus (Tab) shows it in the help line too.
const term = (text, key) => el('span', { className: 'term', tabIndex: 0, title: TERMS[key] }, text);
const num4 = (x) => +x.toFixed(4);

// Which pairs carry time, height and width (M-RoPE), as ranges: "0–15", or "0, 3, …, 57, 60–63" when interleaved.
function pairRanges(axes, a) {
  const idx = axes.flatMap((x, i) => (x === a ? [i] : []));
  const runs = [];
  for (const i of idx) {
    const last = runs.at(-1);
    if (last && i === last[1] + 1) last[1] = i;
    else runs.push([i, i]);
  }
  const parts = runs.map(([s, e]) => (s === e ? `${s}` : `${s}–${e}`));
  return parts.length > 6 ? `${parts.slice(0, 3).join(', ')}, …, ${parts.slice(-2).join(', ')}` : parts.join(', ');
}

function summaryItem(lt) {
  const li = el('li');
  const head = `${lt.name} (${lt.layers.length} layers${lt.window ? `, sliding window ${count(lt.window)}` : ''}): `;
  if (!lt.rope) {
    li.append(head, term('no RoPE (NoPE)', 'nope'));
    if (lt.queryScale) li.append('; ', term(`queries × ${lt.queryScale.formula}`, 'queries'));
    return li;
  }
  const dims = lt.slice === 'trailing' ? `the last ${lt.rotaryDim} of head dim ${lt.headDim}` : `rotary dim ${lt.rotaryDim} of head dim ${lt.headDim}`;
  li.append(head, `rope_type ${lt.ropeType}, θ = ${count(lt.theta)}${lt.factor > 1 ? `, factor ${lt.factor}` : ''}, ${dims}`,
    lt.qkHeadDim ? ` (q·k head dim ${lt.qkHeadDim})` : '', ', ', term(`${lt.layout} layout`, 'layout'),
    ` — ${Object.entries(lt.counts).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(', ')}; `,
    term(`cos/sin × ${num4(lt.cosSinScale)}`, 'cosSin'));
  if (lt.softmaxScale !== 1) li.append(', ', term(`softmax × ${num4(lt.softmaxScale)}`, 'softmax'));
  if (lt.queryScale) li.append(', ', term(`queries × ${lt.queryScale.formula}`, 'queries'));
  if (lt.mrope) li.append('; ', term('M-RoPE', 'mrope'), `${lt.mrope.interleaved ? ' (interleaved)' : ''}: ` +
    ['t', 'h', 'w'].map((a) => `${AXIS_WORDS[a]} pairs ${pairRanges(lt.mrope.axes, a)}`).join('; '));
  const other = lt.knownKeys?.filter((k) => !k.key.startsWith('mrope_')) ?? [];
  if (other.length) li.append(`; also: ${other.map((k) => `${k.key} (${k.use})`).join('; ')}`);
  return li;
}

function contextItem(r) {
  const li = el('li');
  const { original, extended } = r.contexts;
  if (!original) return null;
  const scaled = extended && extended.value !== original.value;
  li.append(term(`${scaled ? 'original context' : 'context'} ${context(original)}`, 'original'), `${original.inferred ? `: ${original.how}` : ` (${original.how})`}`);
  if (scaled)
    li.append('; ', term(`extended context ${context(extended)}`, 'extended'), extended.inferred ? `: ${extended.how}` : ` (${extended.how})`);
  return li;
}

// ---------- the section ----------

export function createYourRope(pe, section, state, { onChange = () => {} } = {}) {
  const $ = (s) => section.querySelector(s);
  const select = $('select.rope-model');
  const layerSelect = $('select.rope-layer-type');
  const text = $('textarea.config');
  const message = $('.config-error');
  const summary = $('.rope-summary');
  const canvases = () => [[$('canvas.wavelengths'), 260], [$('canvas.scales'), 220], [$('canvas.decay'), 220]];
  let result = null, decay = null, pasted = null, token = 0, exported = null;
  let resultModel = null; // the config `result` was computed from (state.ropeModel changes first, while its config loads)

  // Made here, not in the page's markup: the help line for focused terms, the terms of the plots, the export.
  const help = el('p', { className: 'term-help', hidden: true });
  help.setAttribute('aria-live', 'polite');
  summary.after(help);
  const plotTerms = el('p', { className: 'rope-terms' }, 'On the plots: ', term('wavelength', 'wavelength'), ' · ', term('original', 'original'), ' and ',
    term('extended context', 'extended'), ' · ', term('sliding window', 'window'), ' · ', term('logit scale', 'logit'), ' · ', term('q·k bound (RoFormer)', 'bound'));
  $('.pair').after(plotTerms);
  const exportBox = el('details', { className: 'rope-export' }, el('summary', {}, 'Export this RoPE: HF rope_parameters JSON and PyTorch'));
  const jsonPre = el('pre', { className: 'rope-json' }), torchPre = el('pre', { className: 'rope-pytorch' });
  const copyButton = (label, pre) => {
    const b = el('button', { type: 'button', textContent: label });
    b.addEventListener('click', () => navigator.clipboard?.writeText(pre.textContent).catch(() => {}));
    return b;
  };
  exportBox.append(el('p', {}, 'The rope_parameters block, as HF transformers\' config classes save it: ', copyButton('Copy JSON', jsonPre)), jsonPre,
    el('p', {}, 'PyTorch that rebuilds each layer type\'s inv_freq and attention scaling (run it to print them): ', copyButton('Copy PyTorch', torchPre)), torchPre);
  ($('.notice') ?? plotTerms).after(exportBox);
  const showHelp = (t) => {
    help.textContent = t?.title ?? '';
    help.hidden = !t;
  };
  section.addEventListener('focusin', (ev) => ev.target.classList?.contains('term') && showHelp(ev.target));
  section.addEventListener('focusout', (ev) => ev.target.classList?.contains('term') && showHelp(null));
  section.addEventListener('mouseover', (ev) => ev.target.classList?.contains('term') && showHelp(ev.target));

  select.replaceChildren(...SHIPPED_CONFIGS.map((c) => new Option(`${c.label} (${c.repo})`, c.id)), new Option('pasted config', 'pasted'));
  select.value = state.ropeModel;

  // An error leaves nothing of the previous model on screen, and the picker names what failed.
  function fail(e, model) {
    result = null;
    decay = null;
    exported = null;
    resultModel = null;
    message.textContent = `This config cannot be used: ${e.message}`;
    message.hidden = false;
    summary.replaceChildren();
    layerSelect.replaceChildren();
    showHelp(null);
    jsonPre.textContent = torchPre.textContent = '';
    exportBox.hidden = true;
    const notice = $('.notice');
    if (notice) notice.textContent = '';
    drawNothing(canvases(), 'no model: the config above cannot be used');
    if (model === 'pasted' && select.value !== 'pasted') {
      select.value = 'pasted';
      state.ropeModel = 'pasted';
      state.ropeLayerType = 0;
      onChange();
    }
  }

  function show(r, model) {
    result = r;
    if (!message.textContent.startsWith('The link')) { message.hidden = true; message.textContent = ''; }
    layerSelect.replaceChildren(...r.layerTypes.map((lt, i) => new Option(`${lt.name} (${lt.layers.length} layers)`, String(i))));
    if (state.ropeLayerType >= r.layerTypes.length) state.ropeLayerType = 0;
    layerSelect.value = String(state.ropeLayerType);
    const family = r.family?.known && !['generic', 'gguf'].includes(r.family.id)
      ? el('li', { textContent: `Read with HF's rules for this family: ${r.family.reads.replace(/`/g, '')}.` }) : null;
    summary.replaceChildren(...[contextItem(r), ...r.layerTypes.map(summaryItem), family].filter(Boolean),
      ...r.notes.map((n) => el('li', { textContent: n })));
    exported = { ropeParameters: ropeParametersJson(r), pytorch: pytorchSnippet(r, { model: model === 'pasted' ? r.modelType : model }) };
    jsonPre.textContent = JSON.stringify(exported.ropeParameters, null, 1);
    torchPre.textContent = exported.pytorch;
    exportBox.hidden = false;
    draw();
  }

  function draw() {
    if (!result) return;
    const lt = result.layerTypes[state.ropeLayerType] ?? result.layerTypes[0];
    drawWavelengths($('canvas.wavelengths'), lt, result);
    const notice = $('.notice');
    if (notice) notice.textContent = ropeNotice(lt, result);
    drawScales($('canvas.scales'), result);
    decay = drawDecay($('canvas.decay'), lt, result);
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
      text.value = JSON.stringify(cfg, null, 1);
      analyse(cfg, id);
    } catch (e) {
      fail(e, id);
    }
  }

  select.addEventListener('change', () => {
    state.ropeModel = select.value;
    state.ropeLayerType = 0;
    onChange();
    pick(state.ropeModel);
  });
  layerSelect.addEventListener('change', () => {
    state.ropeLayerType = Math.max(0, Math.min(7, Number(layerSelect.value) || 0));
    onChange();
    draw();
  });
  $('form.paste').addEventListener('submit', (ev) => {
    ev.preventDefault();
    pasted = text.value;
    token++;
    if (analyse(pasted, 'pasted')) {
      state.ropeModel = 'pasted';
      select.value = 'pasted';
      state.ropeLayerType = Number(layerSelect.value) || 0;
      onChange();
    }
  });

  if (state.ropeModel === 'pasted') { // the pasted text is not in the URL
    state.ropeModel = SHIPPED_CONFIGS[0].id;
    select.value = state.ropeModel;
    message.textContent = 'The link was made from a pasted config, which links do not carry: paste it again.';
    message.hidden = false;
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
