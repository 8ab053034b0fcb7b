// The model view's figures panel (DOM and drawing only): the model's facts, the controls, the passage, the question
// about a context the file only guesses, the progress and memory lines, and the three figures (perplexity by
// position, the chosen layer's heads, attention statistics against length). What the reader does goes to the
// handlers given; what to show comes from the controller (controller.js).
import { SCALING_NAMES } from './plan.js';
import { modelWords, contextQuestion, threadsWords, count } from './words.js';
import { drawPerplexity, drawHeads, drawStats } from './plots.js';
import { PASSAGE } from './passage.js';
import { ROPE_SCALINGS } from '../shared/state.js';
import { el } from './source-view.js';

let viewCount = 0; // (ids unique per view)

/** The largest text file the passage takes (the figures use at most 8 contexts of it; a book is refused, not read). */
export const TEXT_FILE_MAX = 4 << 20;

/** A text file's contents as a string, or a RangeError saying in plain words why it cannot be the passage. */
export async function readTextFile(file) {
  if (file.size > TEXT_FILE_MAX) throw new RangeError(`${file.name} is ${count(file.size)} bytes; a text file of at most ${count(TEXT_FILE_MAX)} bytes (4 MB) can be the passage.`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    throw new RangeError(`${file.name} is not UTF-8 text, so it cannot be the passage.`);
  }
}

// Where the forwards run, in one line (core.js's engine).
const engineWords = (e) => (e?.gpu
  ? `runs on the GPU (WebGPU, ${e.gpu}) for the scalings' losses; the maps and statistics on the CPU (WebAssembly)`
  : `runs on the CPU (WebAssembly)${e?.reason ? `: not on the GPU, as ${e.reason}` : ''}`);

const figure = (className, label) => {
  const c = el('canvas', { className });
  c.setAttribute('role', 'img');
  c.setAttribute('aria-label', label);
  return c;
};

/**
 * The passage's disclosure: the story or the reader's own text (typed, pasted or read from a text file), which stays
 * on the page. `onText(text | null)`: text to use, or the story again; `onTextError(message)`: a file not read.
 */
function passagePanel({ onText, onTextError, id }) {
  const passageText = el('textarea', { rows: 6, className: 'lm-text', spellcheck: false, value: PASSAGE });
  passageText.setAttribute('aria-label', 'the passage');
  const useText = el('button', { type: 'button', textContent: 'Use this text' });
  const defaultText = el('button', { type: 'button', textContent: 'Back to the story' });
  const textFile = el('input', { type: 'file', accept: '.txt,.md,.text,text/plain', className: 'lm-text-file', name: 'lm-text-file' });
  // Where the reader's text goes, in plain words: nowhere. It is read by this page, tokenised and run here; the page's
  // link (its URL) never carries it, so sharing a link shares the settings, not the text.
  const privateNote = el('p', { className: 'lm-words lm-private', id: `lm-private-${id}`,
    textContent: 'Your text stays on this page: it is read and run here, in your browser, and never sent anywhere. ' +
      'A link to this page keeps the settings but not your text.' });
  passageText.setAttribute('aria-describedby', privateNote.id);
  textFile.setAttribute('aria-describedby', privateNote.id);
  const passage = el('details', { className: 'lm-passage' }, el('summary', { textContent: 'The passage: a story written for this page, or your own text' }),
    el('p', { className: 'lm-words', textContent: 'Paste or type your text below and use it, or choose a text file.' }),
    passageText, el('div', { className: 'lm-row' }, useText, defaultText, el('label', {}, 'or a text file ', textFile)), privateNote);
  useText.addEventListener('click', () => onText(passageText.value));
  textFile.addEventListener('change', async () => {
    const file = textFile.files?.[0];
    if (!file) return;
    try {
      passageText.value = await readTextFile(file);
    } catch (e) {
      onTextError(e.message);
      return;
    } finally {
      textFile.value = ''; // (the same file chosen again reads it again)
    }
    onText(passageText.value);
  });
  defaultText.addEventListener('click', () => {
    passageText.value = PASSAGE;
    onText(null);
  });
  return passage;
}

/**
 * Handlers: `onSetting(key, value)` (a control moved), `onContext(text)` (the context field; false: refused, the
 * field goes back), `onConfirm(text)`, `onText(text | null)` (the reader's text, or the story again), `onTextError(message)`
 * (a chosen text file cannot be read), `onOther()` ("Another model") and `onCancel()` (the progress line's Cancel).
 */
export function createModelView({ onSetting, onContext, onConfirm, onText, onTextError = () => {}, onOther, onCancel }) {
  const facts = el('ul', { className: 'lm-facts' });
  const contextInput = el('input', { type: 'number', name: 'lm-context', min: 2, max: 131072, step: 1 });
  contextInput.setAttribute('aria-label', 'original context in tokens');
  const typeSelect = el('select', { name: 'lm-scaling' }, ...ROPE_SCALINGS.map((t) => new Option(SCALING_NAMES[t], t)));
  const factorInput = el('input', { type: 'range', name: 'lm-factor', min: 1, max: 16, step: 0.5 });
  const factorOut = el('output');
  const timesInput = el('input', { type: 'range', name: 'lm-times', min: 1, max: 8, step: 1 });
  const timesOut = el('output');
  const layerSelect = el('select', { name: 'lm-layer' });
  const other = el('button', { type: 'button', textContent: 'Another model', className: 'lm-other' });
  const controls = el('div', { className: 'lm-row controls' },
    el('label', {}, 'factor s ', factorInput, ' ', factorOut),
    el('label', {}, 'length ', timesInput, ' ', timesOut),
    el('label', {}, 'attention of ', typeSelect),
    el('label', {}, 'layer ', layerSelect), other);
  const passage = passagePanel({ onText, onTextError, id: viewCount + 1 });
  const busyBar = el('progress', { max: 1, value: 0 });
  const busyText = el('span', { className: 'lm-busy-text' });
  const busyCancel = el('button', { type: 'button', textContent: 'Cancel', className: 'lm-busy-cancel' });
  const busy = el('div', { className: 'lm-row lm-busy', hidden: true }, busyBar, busyText, busyCancel);
  const memoryLine = el('p', { className: 'lm-words lm-memory' }); // the peak memory a run at the settings' length needs
  busy.setAttribute('role', 'status');
  const pplCanvas = figure('lm-ppl', 'perplexity by token position, one line per scaling, the original context marked');
  const pplWords = el('p', { className: 'lm-words lm-ppl-words' });
  pplWords.setAttribute('aria-live', 'polite');
  const mapsCanvas = figure('lm-maps', 'attention of each head of the chosen layer, pooled to a small map');
  const statsCanvas = figure('lm-stats', 'attention entropy and the attention on the first token against length');
  const statsWordsP = el('p', { className: 'lm-words lm-stats-words' });
  const mapsCaption = el('p', { className: 'lm-words lm-maps-caption' });
  // A context the file flags as its converter's default: the reader confirms or corrects it before anything is drawn.
  const confirmText = el('p', { className: 'lm-confirm-text', id: `lm-confirm-text-${++viewCount}` });
  const confirmInput = el('input', { type: 'number', name: 'lm-confirm-context', min: 2, max: 131072, step: 1 });
  confirmInput.setAttribute('aria-describedby', confirmText.id);
  const confirmButton = el('button', { type: 'submit', className: 'lm-confirm-use' });
  const confirm = el('form', { className: 'lm-confirm', hidden: true }, el('p', { className: 'lm-confirm-title' }, el('strong', { textContent: 'Which context was this model trained at?' })), confirmText,
    el('div', { className: 'lm-row' }, el('label', {}, 'trained context ', confirmInput, ' tokens'), confirmButton));
  confirm.setAttribute('aria-label', 'confirm the model\'s original context');
  const figures = el('div', { className: 'lm-figures' }, controls, passage, memoryLine, busy, pplCanvas, pplWords,
    el('div', { className: 'lm-pair' }, el('div', {}, mapsCaption, mapsCanvas), statsCanvas), statsWordsP);
  const model = el('div', { className: 'lm-model', hidden: true }, facts, confirm, figures);

  function syncConfirm() {
    const n = Number(confirmInput.value);
    confirmButton.textContent = Number.isInteger(n) && n >= 2 ? `Use ${count(n)} tokens` : 'Use this context';
  }
  function syncControls(s) {
    typeSelect.value = s.type;
    factorInput.value = String(s.factor);
    factorOut.value = `×${s.factor}`;
    timesInput.max = String(s.top);
    timesInput.disabled = s.top === 1;
    timesInput.value = String(s.times);
    timesOut.value = `${count(s.length)} tokens (${+(s.length / s.context).toFixed(2)}× the context)`;
    layerSelect.value = String(s.layer + 1);
  }

  other.addEventListener('click', () => onOther());
  busyCancel.addEventListener('click', () => onCancel());
  confirmInput.addEventListener('input', syncConfirm);
  confirm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    onConfirm(confirmInput.value);
  });
  typeSelect.addEventListener('change', () => onSetting('lmScaling', typeSelect.value));
  factorInput.addEventListener('input', () => onSetting('lmFactor', factorInput.value));
  timesInput.addEventListener('input', () => onSetting('lmTimes', timesInput.value));
  layerSelect.addEventListener('change', () => onSetting('lmLayer', layerSelect.value));

  let modelNow = null; // the controller's model() at the last showModel (the context field goes back to its context)
  contextInput.addEventListener('change', () => {
    if (!onContext(contextInput.value)) contextInput.value = String(modelNow.context);
  });

  return {
    model,
    syncControls,
    /** The model's facts, the question or the controls: `m` is the controller's model(). */
    showModel(m) {
      modelNow = m;
      const { info, tokens, ownText, context, asking, settings: s } = m;
      const c = info.config, d = info.description;
      model.hidden = false;
      confirm.hidden = !asking;
      figures.hidden = asking;
      if (asking) {
        confirmText.textContent = contextQuestion(d);
        confirmInput.value = String(d.suggestedContext || c.context);
        syncConfirm();
      }
      const flag = info.contextSource === 'converter default'
        ? el('span', { className: 'lm-flag', textContent: ` (the file says ${count(c.context)}, its converter's default; this is the one you gave)` })
        : el('span', { textContent: info.contextSource === 'trained' ? ' (the training context, from the file)' : ' (from the file)' });
      contextInput.value = String(context);
      facts.replaceChildren(...[
        el('li', { className: 'lm-what', textContent: modelWords(d) }),
        el('li', { className: 'lm-threads', textContent: threadsWords(info) }),
        el('li', { textContent: `${c.layers} layers, ${c.heads} query heads sharing ${c.kvHeads} key-value heads, head dim ${c.headDim} (${c.rotaryDim} rotated), vocabulary ${count(c.vocabSize)}` }),
        info.tokenizerLabel ? el('li', { className: 'lm-tokenizer', textContent: `its tokenizer, read from the file: ${info.tokenizerLabel}` }) : null,
        el('li', { textContent: `RoPE base θ = ${count(c.ropeTheta)}, ${c.layout === 'half' ? 'half-split' : 'interleaved'} pairs (from the format)` }),
        // (while the context is asked for, its field and what follows from it wait for the answer)
        asking ? null : el('li', {}, 'original context ', contextInput, ' tokens', flag),
        el('li', { className: 'lm-engine', textContent: engineWords(info.engine) }),
        el('li', { textContent: `the passage: ${count(tokens)} tokens (${ownText ? 'your text' : 'a story written for this page'})` +
          (s.top < 8 && !asking ? `; it reaches ${tokens >= s.context ? `${s.top}× the context` : 'less than one context'}, so the lengths stop there` : '') }),
      ].filter(Boolean));
      layerSelect.replaceChildren(...Array.from({ length: c.layers }, (_, l) => new Option(String(l + 1), String(l + 1))));
      syncControls(s);
    },
    busy(on) { busy.hidden = !on; },
    /** The progress line (the words change only when a forward starts or the time left moves by a step: the status is read out when they do). */
    progress({ value, text }) {
      busyBar.value = value;
      if (busyText.textContent !== text) busyText.textContent = text;
    },
    memory({ text, fits }) {
      memoryLine.textContent = text;
      memoryLine.classList.toggle('lm-refused', !fits);
    },
    /** The three figures and their sentences: `f` is what the controller's draw() hands over. */
    figure({ s, series, heads, maps, pplText, points, statsText }) {
      drawPerplexity(pplCanvas, series, { context: s.context, length: s.length, chosen: s.type });
      pplWords.textContent = pplText;
      const label = s.type === 'none' ? 'no scaling' : `${SCALING_NAMES[s.type]} ×${s.factor}`;
      if (maps) {
        drawHeads(mapsCanvas, { maps: maps.maps, peaks: maps.peaks, px: maps.px, heads });
        mapsCaption.textContent = `Layer ${s.layer + 1}'s ${heads} heads over ${count(s.length)} tokens with ${label}, pooled to ` +
          `${maps.px} × ${maps.px}: row a query, column a key, brighter more attention (square-root scale, each head to its own peak).`;
      } else {
        mapsCanvas.getContext('2d').clearRect(0, 0, mapsCanvas.width, mapsCanvas.height);
        mapsCanvas.dataset.heads = '0';
        mapsCaption.textContent = `Layer ${s.layer + 1}'s heads with ${label}: not computed yet.`;
      }
      drawStats(statsCanvas, points, { context: s.context });
      statsWordsP.textContent = statsText;
    },
  };
}
