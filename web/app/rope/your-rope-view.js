// "Your model's RoPE" on the page (DOM only): the model picker, the paste form, the layer-type picker, the summary
// of what each layer type's rotary pairs do, the help line for focused terms, the three plots and the export. The
// reader's choices go to the handlers given; what to show comes from the controller (your-rope.js).
import { SHIPPED_CONFIGS } from '../../configs/index.js';
import { count, context, TERMS } from './rope-words.js';
import { drawWavelengths, drawScales, drawDecay, drawNothing, ropeNotice, AXIS_WORDS } from './your-rope-plots.js';

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

/**
 * The section's view. Handlers: `onModel(id)` (the picker), `onLayerType(index)` (the layer-type picker, a whole
 * number 0 to 7) and `onPaste(text)` (the paste form). `model` and `layerType`: what the pickers show first.
 */
export function createRopeView(section, { model, onModel, onLayerType, onPaste }) {
  const $ = (s) => section.querySelector(s);
  const select = $('select.rope-model');
  const layerSelect = $('select.rope-layer-type');
  const text = $('textarea.config');
  const message = $('.config-error');
  const summary = $('.rope-summary');
  const canvases = () => [[$('canvas.wavelengths'), 260], [$('canvas.scales'), 220], [$('canvas.decay'), 220]];

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
  select.value = model;
  select.addEventListener('change', () => onModel(select.value));
  layerSelect.addEventListener('change', () => onLayerType(Math.max(0, Math.min(7, Number(layerSelect.value) || 0))));
  $('form.paste').addEventListener('submit', (ev) => {
    ev.preventDefault();
    onPaste(text.value);
  });

  return {
    /** The picker shows model `id`. */
    setModel(id) {
      select.value = id;
    },
    /** The picker's model. */
    model: () => select.value,
    /** The layer type the layer-type picker shows (0 when it shows none). */
    layerType: () => Number(layerSelect.value) || 0,
    /** The config's text in the paste box. */
    setText(value) {
      text.value = value;
    },
    /** Says `words` above the plots (a link that could not be followed). */
    say(words) {
      message.textContent = words;
      message.hidden = false;
    },
    /** An error (`e.message`): nothing of the previous model stays on screen. */
    fail(e) {
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
    },
    /** Result `r` of pe.ropeFromConfig: its layer types in the picker (showing `layerType`), its summary and its `exported` forms. */
    show(r, layerType, exported) {
      if (!message.textContent.startsWith('The link')) { message.hidden = true; message.textContent = ''; }
      layerSelect.replaceChildren(...r.layerTypes.map((lt, i) => new Option(`${lt.name} (${lt.layers.length} layers)`, String(i))));
      layerSelect.value = String(layerType);
      const family = r.family?.known && !['generic', 'gguf'].includes(r.family.id)
        ? el('li', { textContent: `Read with HF's rules for this family: ${r.family.reads.replace(/`/g, '')}.` }) : null;
      summary.replaceChildren(...[contextItem(r), ...r.layerTypes.map(summaryItem), family].filter(Boolean),
        ...r.notes.map((n) => el('li', { textContent: n })));
      jsonPre.textContent = JSON.stringify(exported.ropeParameters, null, 1);
      torchPre.textContent = exported.pytorch;
      exportBox.hidden = false;
    },
    /** The plots of layer type `lt` of result `r`; returns the decay plot's data. */
    draw(lt, r) {
      drawWavelengths($('canvas.wavelengths'), lt, r);
      const notice = $('.notice');
      if (notice) notice.textContent = ropeNotice(lt, r);
      drawScales($('canvas.scales'), r);
      return drawDecay($('canvas.decay'), lt, r);
    },
  };
}
