// "Your model, past its context": a real language model (loaded from the reader's files or fetched by the reader's
// browser) run over a passage longer than its context, with no scaling and with PI, dynamic NTK, YaRN and Llama 3
// side by side (perplexity by position), the chosen scaling's attention per head, and attention entropy and
// first-token mass against length. The forwards run in Workers (pool.js, worker.js) through the JS API
// (pe.loadLanguageModel); this module only plans (plan.js), fetches (fetch.js), draws (plots.js) and words
// (words.js). Used by the page's section and by <posenc-explorer view="model">.
import { createLmPool } from './pool.js';
import { SUGGESTED, fetchPlan, classifyFiles } from './sources.js';
import { fetchModel, readDropped } from './fetch.js';
import { planForwards, findNll, findStats, mapsKey, nllKeys, statLengths, maxTimes, lengthFor, SCALING_NAMES } from './plan.js';
import { rowsCost, timeLeftWords, memoryWords } from './schedule.js';
import { perplexityWords, statsWords, statPoint, modelWords, contextQuestion, threadsWords } from './words.js';
import { drawPerplexity, drawHeads, drawStats } from './plots.js';
import { PASSAGE } from './passage.js';
import { coerce, ROPE_SCALINGS } from '../state.js';
import { adoptLmStyles } from './styles.js';
import { holdBackground } from '../foreground.js';

let viewCount = 0; // (ids unique per view)
const MB = (n) => `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)} MB`;
const count = (n) => n.toLocaleString('en-US');

function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children.filter((c) => c != null));
  return e;
}

/** Every ArrayBuffer under `files` (to transfer to the Worker). */
const buffersOf = (files) => [...new Set(Object.values(files).flatMap((x) => (ArrayBuffer.isView(x) ? [x.buffer]
  : x && typeof x === 'object' ? Object.values(x).filter(ArrayBuffer.isView).map((b) => b.buffer) : [])))];

/**
 * Builds the view into `host` (an element, empty). `state`: the page's state object (its lm* keys and modelUrl are
 * read and written here); `onChange()`: the state changed (save the URL); `api()`: the page's posenc API, used only
 * when no Worker can start; `styleRoot`: where the view's stylesheet goes (the document or a shadow root).
 */
/** The state keys the view's own controls set. */
export const LM_KEYS = ['lmScaling', 'lmFactor', 'lmTimes', 'lmContext', 'lmLayer'];

export function createLmView(host, { state, onChange = () => {}, api, styleRoot = document, onNotice = () => {} }) {
  adoptLmStyles(styleRoot);
  host.classList.add('lm');
  // ---------- the source: suggestions, an address, a drop zone ----------
  const urlInput = el('input', { type: 'text', name: 'lm-url', spellcheck: false, autocomplete: 'off',
    placeholder: 'https://huggingface.co/… (a .gguf, a .bin and its tokenizer, or a repository)' });
  urlInput.setAttribute('aria-label', 'model file addresses, separated by spaces');
  const urlForm = el('form', { className: 'lm-url' }, urlInput, el('button', { type: 'submit', textContent: 'Load' }));
  const fileInput = el('input', { type: 'file', multiple: true, className: 'lm-file' });
  const pickLabel = el('label', {}, 'choose files', fileInput);
  const drop = el('div', { className: 'lm-drop', tabIndex: 0 }, 'Drop the model\'s files here, or ', pickLabel,
    ' (a .gguf; a llama2.c .bin with its tokenizer.bin; or .safetensors with config.json and tokenizer.json). They stay on this computer.');
  const suggested = el('ul', { className: 'lm-suggested' }, ...SUGGESTED.map((m) => {
    const b = el('button', { type: 'button', textContent: m.name });
    b.addEventListener('click', () => {
      urlInput.value = m.urls.join(' ');
      loadUrls(m.urls);
    });
    return el('li', {}, b, el('span', { className: 'what', textContent: m.what }), el('code', { textContent: m.urls.join(' ') }));
  }));
  const loadBar = el('progress', { max: 1, value: 0 });
  const loadText = el('span', { className: 'lm-load-text' });
  const loadCancel = el('button', { type: 'button', textContent: 'Cancel', className: 'lm-load-cancel' });
  const loading = el('div', { className: 'lm-row lm-loading', hidden: true }, loadBar, loadText, loadCancel);
  loading.setAttribute('role', 'status');
  const error = el('p', { className: 'lm-error', hidden: true });
  error.setAttribute('role', 'alert');
  const familyList = el('span', { className: 'lm-families' }); // the core's family table's labels, once its Worker answers
  const source = el('div', { className: 'lm-source' },
    el('p', {}, 'Load a language model', familyList, ': pick a public one, give the addresses of its files, or drop the files. ' +
      'Your browser fetches or reads them; nothing is uploaded anywhere.'),
    suggested, urlForm, drop);

  // ---------- the model: facts, controls, figures ----------
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
  const passageText = el('textarea', { rows: 6, className: 'lm-text', spellcheck: false });
  passageText.setAttribute('aria-label', 'the passage');
  const useText = el('button', { type: 'button', textContent: 'Use this text' });
  const defaultText = el('button', { type: 'button', textContent: 'Back to the story' });
  const passage = el('details', { className: 'lm-passage' }, el('summary', { textContent: 'The passage: a story written for this page, or your own text' }),
    passageText, el('div', { className: 'lm-row' }, useText, defaultText));
  const busyBar = el('progress', { max: 1, value: 0 });
  const busyText = el('span', { className: 'lm-busy-text' });
  const busyCancel = el('button', { type: 'button', textContent: 'Cancel', className: 'lm-busy-cancel' });
  const busy = el('div', { className: 'lm-row lm-busy', hidden: true }, busyBar, busyText, busyCancel);
  const memoryLine = el('p', { className: 'lm-words lm-memory' }); // the peak memory a run at the settings' length needs
  busy.setAttribute('role', 'status');
  const pplCanvas = el('canvas', { className: 'lm-ppl' });
  pplCanvas.setAttribute('role', 'img');
  pplCanvas.setAttribute('aria-label', 'perplexity by token position, one line per scaling, the original context marked');
  const pplWords = el('p', { className: 'lm-words lm-ppl-words' });
  pplWords.setAttribute('aria-live', 'polite');
  const mapsCanvas = el('canvas', { className: 'lm-maps' });
  mapsCanvas.setAttribute('role', 'img');
  mapsCanvas.setAttribute('aria-label', 'attention of each head of the chosen layer, pooled to a small map');
  const statsCanvas = el('canvas', { className: 'lm-stats' });
  statsCanvas.setAttribute('role', 'img');
  statsCanvas.setAttribute('aria-label', 'attention entropy and the attention on the first token against length');
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
  host.append(source, loading, error, model);

  // ---------- the Workers: one, or for a small model several computing different scalings at once ----------
  const pool = createLmPool({ api, onNotice });
  const request = (type, body, transfer, index) => pool.request(type, body, transfer, index);
  request('families').then(({ families }) => {
    const labels = families.map((f) => f.label);
    familyList.textContent = ` of a family posenc runs (${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]})`;
  }, () => {}); // (no list: a load's own error says what failed)

  // ---------- loading ----------
  let info = null, ids = null, customText = null, results = new Map(), modelGen = 0, loadAbort = null;
  const showError = (msg) => {
    error.textContent = msg;
    error.hidden = !msg;
  };
  function showLoading(on) {
    loading.hidden = !on;
    if (!on) loadText.textContent = '';
  }
  loadCancel.addEventListener('click', () => loadAbort?.abort());

  // `keepContext`: the state's lmContext belongs to this model (a link's, or the element's attribute); a model the
  // reader picks starts from its file's context.
  async function load(getFiles, urls, { keepContext = false } = {}) {
    loadAbort?.abort();
    cancelCompute();
    const abort = (loadAbort = new AbortController());
    let release = () => {};
    showError('');
    loadBar.removeAttribute('value');
    loadText.textContent = 'starting…';
    showLoading(true);
    try {
      const files = await getFiles(abort.signal);
      if (abort.signal.aborted) throw new DOMException('cancelled', 'AbortError');
      loadBar.removeAttribute('value');
      loadText.textContent = 'reading the model…';
      const tLoad = performance.now(); // (data-load-ms: bench/lm-figure.js)
      release = holdBackground(); // reading the model (not its download, which needs no CPU): the sweep waits
      const gen = ++modelGen;
      info = null;
      const { info: got } = await pool.load(files, buffersOf(files));
      if (gen !== modelGen) return;
      if (!got.hasTokenizer) throw new RangeError(`this model has no tokenizer: ${got.tokenizerNote}`);
      info = got;
      results = new Map();
      state.modelUrl = urls;
      if (!keepContext) state.lmContext = 0;
      // A context the reader confirmed stays in the state (and the link) even when it is the file's: it was asked for.
      if (state.lmContext && state.lmContext === info.config.context && info.contextSource !== 'converter default') state.lmContext = 0;
      onChange();
      await encode();
      host.dataset.loadMs = String(Math.round(performance.now() - tLoad));
      showModel();
      compute();
    } catch (e) {
      if (e?.name === 'AbortError' && info && !model.hidden) { // cancelled while downloading: the model shown stays
        showError('Loading was cancelled; the model shown is unchanged.');
        compute();
        return;
      }
      info = null;
      model.hidden = true;
      source.hidden = false;
      showError(e?.name === 'AbortError' ? 'Loading was cancelled.' : `This model cannot be used: ${e?.message ?? e}`);
    } finally {
      release();
      if (loadAbort === abort) loadAbort = null;
      showLoading(false);
    }
  }

  function loadUrls(urls, { keepContext = false } = {}) {
    let plan;
    try {
      urls = urls.map((u) => u.trim()).filter(Boolean);
      if (urls.length > 4) throw new RangeError('give at most 4 addresses');
      const bad = urls.find((u) => coerce('modelUrl', [u]).length !== 1);
      if (bad) throw new RangeError(`${bad.slice(0, 80)} is not an https address (or a path on this site)`);
      plan = fetchPlan(urls);
    } catch (e) {
      showError(`This model cannot be used: ${e.message}`);
      return Promise.resolve();
    }
    return load((signal) => fetchModel(plan, { signal, onProgress: ({ file, loaded, total, done, count: n, cached }) => {
      loadBar.max = total ?? 1;
      if (total) loadBar.value = loaded;
      else loadBar.removeAttribute('value');
      loadText.textContent = `${file}: ${MB(loaded)}${total ? ` of ${MB(total)}` : ''}${cached ? ' (from this browser\'s cache)' : ''}` +
        (n > 1 ? ` · file ${Math.min(done + 1, n)} of ${n}` : '');
    } }), urls, { keepContext });
  }

  function loadFiles(list) {
    let picked;
    try {
      picked = classifyFiles([...list]);
    } catch (e) {
      showError(`This model cannot be used: ${e.message}`);
      return Promise.resolve();
    }
    const total = [...Object.values(picked.roles), ...picked.shards].reduce((s, f) => s + f.size, 0);
    return load(async () => {
      loadText.textContent = `reading ${MB(total)} from your files…`;
      return readDropped(picked);
    }, []); // a local file is never put in the URL
  }

  urlForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    loadUrls(urlInput.value.split(/\s+/));
  });
  fileInput.addEventListener('change', () => fileInput.files.length && loadFiles(fileInput.files));
  drop.addEventListener('dragover', (ev) => {
    ev.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (ev) => {
    ev.preventDefault();
    drop.classList.remove('over');
    if (ev.dataTransfer?.files?.length) loadFiles(ev.dataTransfer.files);
  });
  drop.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      fileInput.click();
    }
  });
  other.addEventListener('click', () => {
    cancelCompute();
    source.hidden = false;
    urlInput.focus();
  });

  // ---------- the passage ----------
  async function encode() {
    const { ids: got } = await request('encode', { text: customText ?? PASSAGE });
    ids = got;
  }
  useText.addEventListener('click', async () => {
    const t = passageText.value;
    if (!info) return;
    customText = t === PASSAGE ? null : t;
    await retokenise();
  });
  defaultText.addEventListener('click', async () => {
    customText = null;
    passageText.value = PASSAGE;
    if (info) await retokenise();
  });
  async function retokenise() {
    cancelCompute();
    try {
      await encode();
      if (ids.length < 2) throw new RangeError('the passage must hold at least two tokens');
      results = new Map();
      showError('');
      showModel();
      compute();
    } catch (e) {
      showError(`This passage cannot be used: ${e.message}`);
    }
  }
  passageText.value = PASSAGE;

  // ---------- settings ----------
  const contextOf = () => state.lmContext || info.config.context;
  /** The file's context is its converter's default and the reader has not confirmed or corrected it yet. */
  const needsConfirmation = () => info?.contextSource === 'converter default' && !state.lmContext;
  function settings() {
    const context = contextOf();
    const top = maxTimes(ids.length, context);
    const times = Math.min(state.lmTimes, top);
    return { type: state.lmScaling, factor: state.lmFactor, context, times, top, length: lengthFor(times, ids.length, context),
      layer: Math.min(state.lmLayer, info.config.layers) - 1 };
  }

  // Where the forwards run, in one line (core.js's engine).
  const engineWords = (e) => (e?.gpu
    ? `runs on the GPU (WebGPU, ${e.gpu}) for the scalings' losses; the maps and statistics on the CPU (WebAssembly)`
    : `runs on the CPU (WebAssembly)${e?.reason ? `: not on the GPU, as ${e.reason}` : ''}`);

  function showModel() {
    const c = info.config, d = info.description;
    source.hidden = true;
    model.hidden = false;
    const asking = needsConfirmation();
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
    contextInput.value = String(contextOf());
    const s = settings();
    facts.replaceChildren(...[
      el('li', { className: 'lm-what', textContent: modelWords(d) }),
      el('li', { className: 'lm-threads', textContent: threadsWords(info) }),
      el('li', { textContent: `${c.layers} layers, ${c.heads} query heads sharing ${c.kvHeads} key-value heads, head dim ${c.headDim} (${c.rotaryDim} rotated), vocabulary ${count(c.vocabSize)}` }),
      el('li', { textContent: `RoPE base θ = ${count(c.ropeTheta)}, ${c.layout === 'half' ? 'half-split' : 'interleaved'} pairs (from the format)` }),
      // (while the context is asked for, its field and what follows from it wait for the answer)
      asking ? null : el('li', {}, 'original context ', contextInput, ' tokens', flag),
      el('li', { className: 'lm-engine', textContent: engineWords(info.engine) }),
      el('li', { textContent: `the passage: ${count(ids.length)} tokens (${customText == null ? 'a story written for this page' : 'your text'})` +
        (s.top < 8 && !asking ? `; it reaches ${ids.length >= s.context ? `${s.top}× the context` : 'less than one context'}, so the lengths stop there` : '') }),
    ].filter(Boolean));
    layerSelect.replaceChildren(...Array.from({ length: c.layers }, (_, l) => new Option(String(l + 1), String(l + 1))));
    syncControls();
  }

  function syncConfirm() {
    const n = Number(confirmInput.value);
    confirmButton.textContent = Number.isInteger(n) && n >= 2 ? `Use ${count(n)} tokens` : 'Use this context';
  }
  confirmInput.addEventListener('input', syncConfirm);
  confirm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const n = Number(confirmInput.value);
    if (!Number.isInteger(n) || n < 2 || n > 131072) {
      showError(`The original context must be a whole number of tokens from 2 to 131,072 (got ${confirmInput.value || 'nothing'}).`);
      return;
    }
    showError('');
    state.lmContext = n;
    onChange();
    showModel();
    compute();
  });

  function syncControls() {
    const s = settings();
    typeSelect.value = s.type;
    factorInput.value = String(s.factor);
    factorOut.value = `×${s.factor}`;
    timesInput.max = String(s.top);
    timesInput.disabled = s.top === 1;
    timesInput.value = String(s.times);
    timesOut.value = `${count(s.length)} tokens (${+(s.length / s.context).toFixed(2)}× the context)`;
    layerSelect.value = String(s.layer + 1);
  }

  const onSetting = (key, value) => {
    state[key] = coerce(key, value);
    onChange();
    syncControls();
    compute();
  };
  typeSelect.addEventListener('change', () => onSetting('lmScaling', typeSelect.value));
  factorInput.addEventListener('input', () => onSetting('lmFactor', factorInput.value));
  timesInput.addEventListener('input', () => onSetting('lmTimes', timesInput.value));
  layerSelect.addEventListener('change', () => onSetting('lmLayer', layerSelect.value));
  contextInput.addEventListener('change', () => {
    const n = Number(contextInput.value);
    if (!Number.isInteger(n) || n < 2 || n > 131072) {
      showError(`The original context must be a whole number of tokens from 2 to 131,072 (got ${contextInput.value || 'nothing'}).`);
      contextInput.value = String(contextOf());
      return;
    }
    showError('');
    state.lmContext = n === info.config.context && info.contextSource !== 'converter default' ? 0 : n;
    onChange();
    showModel();
    compute();
  });

  // ---------- computing: a forward per Worker at a time, each streaming in, cancelled when no longer wanted ----------
  // One loop hands the forwards the current settings still need to the idle Workers, in the plan's order (the chosen
  // scaling, then none, then the others), and re-plans after each one lands or the settings change. A forward streams
  // in chunks of rows (core.js): its line is drawn as far as its rows go. A forward the settings no longer want is
  // cancelled in its Worker (which frees its memory between two chunks), and its partial line is dropped at once.
  let gen = 0, busyTimer = 0, running = false, cancelled = -1, wake = () => {};
  let run = { gen: -1, t0: 0, done: 0, count: 0 };
  const inFlight = new Map(); // key -> {index (the Worker), j (the job), landed (a promise of {j, f, r | e, my, mg, rs}), cancel}
  const partial = new Map(); // key -> {nll: Float32Array [length - 1], rows (run so far)}: forwards streaming in
  let memory = null; // {key (model, length, layer), fits, text, total}: the peak memory of a run at the settings
  let refusedShown = false; // the error shown is the memory's refusal
  function stopForwards(wanted = () => false) {
    for (const [k, f] of inFlight) {
      if (wanted(k)) continue;
      f.cancel();
      f.cancelled = true;
      inFlight.delete(k);
      partial.delete(k);
    }
    wake();
  }
  function cancelCompute() {
    cancelled = gen;
    stopForwards();
    clearTimeout(busyTimer);
    busy.hidden = true;
  }
  busyCancel.addEventListener('click', () => {
    cancelCompute();
    draw();
  });

  function compute() {
    if (!info || !ids || needsConfirmation()) return;
    gen++;
    draw();
    if (!running) loop();
    else wake();
  }

  let drawPending = false; // chunks land faster than frames: one draw per frame
  const drawSoon = () => {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(() => {
      drawPending = false;
      draw();
    });
  };

  let releaseBackground = () => {};
  async function loop() {
    running = true;
    releaseBackground = holdBackground(); // the page's sweep waits while the reader waits on these forwards
    try {
      for (;;) {
        if (!info || !ids || cancelled === gen) break;
        const my = gen, mg = modelGen, rs = results, s = settings();
        const plan = planForwards(s);
        const wanted = new Set(plan.map((j) => j.key));
        stopForwards((k) => wanted.has(k)); // the settings changed: what they no longer want stops now
        const todo = plan.filter((j) => !results.has(j.key) && !inFlight.has(j.key) &&
          !(j.mapLayer == null && !j.stats && findNll(results, s, j.type)));
        if (run.gen !== my) {
          clearTimeout(busyTimer);
          run = { gen: my, t0: performance.now(), doneCost: 0, done: 0, log: [], firstMs: null, sent: [] };
          busyTimer = setTimeout(() => { if (run.gen === gen && running && cancelled !== gen) busy.hidden = false; }, 300); // only past 300 ms
        }
        // Before a run starts: the memory it needs at its peak, said, and refused when it does not fit.
        const memoryKey = `${mg}|${s.length}|${s.layer}`;
        if (todo.length && memory?.key !== memoryKey) {
          const px = Math.min(64, s.length);
          const got = await request('memory', { length: s.length, stats: true, mapLayer: s.layer, mapPx: px }).then((r) => r.memory, (e) => e);
          if (mg !== modelGen) continue;
          if (got instanceof Error) {
            showError(`The memory a run needs could not be measured: ${got.message}`);
            cancelled = gen;
            break;
          }
          memory = { key: memoryKey, total: got.total, ...memoryWords(got, s.length) };
          memoryLine.textContent = memory.text;
          memoryLine.classList.toggle('lm-refused', !memory.fits);
          if (memory.fits && refusedShown) showError('');
          refusedShown = false;
          host.dataset.peakBytes = String(got.total);
          continue; // (the settings may have changed meanwhile: plan again)
        }
        if (todo.length && !memory.fits) {
          showError(memory.text);
          refusedShown = true;
          cancelled = gen;
          break;
        }
        if (!todo.length && !inFlight.size) {
          host.dataset.computeMs = String(Math.round(performance.now() - run.t0));
          // each forward: its Worker, when it was sent and landed (ms since the settings) and its own time in the Worker
          // (bench/lm-figure.js)
          host.dataset.forwardLog = run.log.join(', ');
          break;
        }
        const taken = new Set([...inFlight.values()].map((f) => f.index));
        for (let i = 0; i < pool.size && todo.length; i++) {
          if (taken.has(i)) continue;
          const j = todo.shift();
          const sent = performance.now() - run.t0;
          const line = { nll: new Float32Array(j.length - 1), rows: 0 };
          const onChunk = ({ from, rows, nll }) => {
            if (partial.get(j.key) !== line) return;
            line.nll.set(nll, from);
            if (run.gen === my) run.doneCost += rowsCost(j, line.rows, rows);
            line.rows = rows;
            if (run.gen === my && run.firstMs == null) {
              host.dataset.firstPointsMs = String(run.firstMs = Math.round(performance.now() - run.t0));
              [run.firstAt, run.firstCost] = [performance.now(), run.doneCost]; // the rate is measured from here (past the start's costs)
            }
            drawSoon();
          };
          partial.set(j.key, line);
          const stream = pool.stream({ tokens: ids.slice(0, j.length), context: s.context, scaling: j.scaling, stats: j.stats,
            mapLayer: j.mapLayer, mapPx: Math.min(64, j.length) }, i, onChunk);
          const f = { index: i, j, cancel: stream.cancel, cancelled: false };
          f.landed = stream.landed.then((r) => ({ j, f, line, r, my, mg, rs, i, sent }), (e) => ({ j, f, e, my, mg, rs }));
          inFlight.set(j.key, f);
          run.sent.push(j.type);
          host.dataset.sentOrder = run.sent.join(','); // the order the forwards were started in (tests)
        }
        showProgress(todo);
        // the next forward to land, or new settings (wake)
        const got = await Promise.race([...[...inFlight.values()].map((f) => f.landed), new Promise((resolve) => { wake = () => resolve(null); })]);
        wake = () => {};
        if (!got || got.f.cancelled) continue;
        inFlight.delete(got.j.key);
        partial.delete(got.j.key);
        if (got.e) {
          if (got.my === gen && got.rs === results && got.e.name !== 'AbortError') {
            showError(`The forward failed: ${got.e.message}`);
            cancelled = gen;
          }
          continue;
        }
        if (got.mg !== modelGen || got.rs !== results) continue; // another model or passage since
        results.set(got.j.key, { ...got.r, nll: got.line.nll });
        if (run.gen === got.my) {
          run.done++;
          run.log.push(`w${got.i} ${got.j.type} ${Math.round(got.sent)}-${Math.round(performance.now() - run.t0)} (${Math.round(got.r.ms)})`);
        }
        draw();
      }
    } finally {
      running = false;
      releaseBackground();
      clearTimeout(busyTimer);
      busy.hidden = true;
    }
  }

  // The progress: which forwards run, how far, and the time left (from the work done so far in this run).
  let progressTimer = 0;
  function showProgress(todo) {
    clearTimeout(progressTimer);
    if (!running || run.gen !== gen) return;
    const flying = [...inFlight.values()].map((f) => f.j);
    const doneNow = run.doneCost, left = [...flying, ...todo].reduce((a, j) => a + j.cost, 0) -
      flying.reduce((a, j) => a + rowsCost(j, 0, partial.get(j.key)?.rows ?? 0), 0);
    busyBar.value = doneNow / (doneNow + left || 1);
    const when = run.firstMs == null ? null : timeLeftWords(doneNow - run.firstCost, performance.now() - run.firstAt, left);
    // (the words change only when a forward starts or the time left moves by a step: the status is read out when they do)
    const text = `forward ${run.done + 1} of ${run.done + flying.length + todo.length}: ` +
      `${flying.map((j) => SCALING_NAMES[j.type]).join(' and ')} over ${count(Math.max(...flying.map((j) => j.length)))} tokens` +
      `${flying.some((j) => j.stats) ? ', with attention statistics' : ''} · ${when ?? 'estimating the time left'}`;
    if (busyText.textContent !== text) busyText.textContent = text;
    progressTimer = setTimeout(() => showProgress(todo), 500);
  }

  // The losses of scaling t's forward at the settings as far as they have streamed in (null: none yet)
  const streaming = (s, t) => {
    for (const k of nllKeys(s, t, s.type)) {
      const p = partial.get(k);
      if (p?.rows) return p.nll.subarray(0, Math.min(p.rows, s.length - 1));
    }
    return null;
  };
  let order = [], orderGen = -1;
  function draw() {
    if (orderGen !== gen) [order, orderGen] = [[], gen];
    if (!info || !ids || model.hidden || needsConfirmation()) return;
    const s = settings();
    const series = {};
    for (const t of ROPE_SCALINGS) {
      const nll = findNll(results, s, t) ?? streaming(s, t);
      if (nll) series[t] = nll;
    }
    const drawn = Object.keys(series).filter((t) => !order.includes(t));
    if (run.gen === gen) order.push(...drawn); // the order the lines first showed (tests)
    host.dataset.lineOrder = order.join(',');
    host.dataset.partial = ROPE_SCALINGS.filter((t) => series[t] && series[t].length < s.length - 1).join(',');
    drawPerplexity(pplCanvas, series, { context: s.context, length: s.length, chosen: s.type });
    // the sentences read only whole lines (a line still streaming in has no numbers past its end yet)
    const whole = Object.fromEntries(Object.entries(series).filter(([, nll]) => nll.length === s.length - 1));
    pplWords.textContent = perplexityWords(whole, s) + (cancelled === gen ? ' (Stopped: what is drawn is what was computed before.)' : '');
    const all = results.get(mapsKey(s, s.type));
    const label = s.type === 'none' ? 'no scaling' : `${SCALING_NAMES[s.type]} ×${s.factor}`;
    if (all?.maps) {
      drawHeads(mapsCanvas, { maps: all.maps, peaks: all.peaks, px: all.px, heads: info.config.heads });
      mapsCaption.textContent = `Layer ${s.layer + 1}'s ${info.config.heads} heads over ${count(s.length)} tokens with ${label}, pooled to ` +
        `${all.px} × ${all.px}: row a query, column a key, brighter more attention (square-root scale, each head to its own peak).`;
    } else {
      mapsCanvas.getContext('2d').clearRect(0, 0, mapsCanvas.width, mapsCanvas.height);
      mapsCanvas.dataset.heads = '0';
      mapsCaption.textContent = `Layer ${s.layer + 1}'s heads with ${label}: not computed yet.`;
    }
    const points = statLengths(s.length, s.context).map((n) => [n, findStats(results, s, s.type, n)]).filter(([, r]) => r)
      .map(([n, r]) => statPoint(n, r));
    drawStats(statsCanvas, points, { context: s.context });
    statsWordsP.textContent = statsWords(points, s);
    host.dataset.series = String(Object.keys(series).length);
    if (Object.keys(whole).length === ROPE_SCALINGS.length && run.gen === gen && run.figureMs == null) host.dataset.figureMs = String(run.figureMs = Math.round(performance.now() - run.t0));
  }

  // ---------- start: a model named in the state is fetched once the view is on screen ----------
  urlInput.value = state.modelUrl.join(' ');
  let started = false;
  const observer = new IntersectionObserver((entries) => {
    if (started || !entries.some((e) => e.isIntersecting)) return;
    started = true;
    observer.disconnect();
    if (state.modelUrl.length) loadUrls(state.modelUrl, { keepContext: true });
  });
  observer.observe(host);

  return {
    /** Redraw (after a resize or a theme change). */
    draw,
    loadUrls,
    loadFiles,
    /**
     * New settings from outside the view (the element's lm-* attributes changed): `next` holds any of lmScaling,
     * lmFactor, lmTimes, lmContext and lmLayer, already coerced. Only keys that differ are taken; the view then
     * recomputes what is missing, as after a slider.
     */
    setSettings(next) {
      const changed = LM_KEYS.filter((k) => k in next && next[k] !== state[k]);
      if (!changed.length) return;
      for (const k of changed) state[k] = next[k];
      onChange();
      if (!info) return; // applied when a model is loaded
      if (changed.includes('lmContext')) showModel();
      else syncControls();
      compute();
    },
    /** What the view shows, for tests and export: the model's facts, the settings and the computed series. */
    data() {
      if (!info || !ids) return null;
      const s = settings();
      const series = Object.fromEntries(ROPE_SCALINGS.map((t) => [t, findNll(results, s, t)]).filter(([, nll]) => nll).map(([t, nll]) => [t, Array.from(nll)]));
      return { config: info.config, description: info.description, contextSource: info.contextSource, confirming: needsConfirmation(), settings: s, tokens: ids.length, nll: series };
    },
    /** The bytes the first Worker's model memory can still give (for tests: a cancelled forward frees what it held). */
    async memoryLeft() {
      return (await request('memory', { length: 2 })).memory.available;
    },
    destroy() {
      observer.disconnect();
      loadAbort?.abort();
      cancelCompute();
      releaseBackground();
      pool.terminate();
    },
  };
}
