// The model view's controller: what "Your model, past its context" knows and does, with no DOM. It loads a model
// (fetched by the reader's browser or read from the reader's files), tokenises the passage, turns the page's state
// (its lm* keys, state.js) into settings, and has the forwards run in the Workers (pool.js, worker.js) by its run
// loop (run.js). What it has to show goes out through `ui` (view.js wires it to the source and model views); the
// reader's actions come in through the methods returned.
import { createLmPool } from './pool.js';
import { createLoader } from './load.js';
import { findNll, maxTimes, lengthFor } from './plan.js';
import { createRun } from './run.js';
import { PASSAGE } from './passage.js';
import { coerce, ROPE_SCALINGS } from '../shared/state.js';

/** The state keys the view's own controls set. */
export const LM_KEYS = ['lmScaling', 'lmFactor', 'lmTimes', 'lmContext', 'lmLayer'];
const MAX_CONTEXT = 131072;

/** A context the reader typed, as a whole number of tokens, or null. */
const contextFrom = (text) => {
  const n = Number(text);
  return Number.isInteger(n) && n >= 2 && n <= MAX_CONTEXT ? n : null;
};
const contextError = (text) => `The original context must be a whole number of tokens from 2 to 131,072 (got ${text || 'nothing'}).`;

/**
 * `state`: the page's state object (its lm* keys and modelUrl are read and written here); `onChange()`: the state
 * changed (save the URL); `api()`: the page's posenc API, used only when no Worker can start; `onNotice(message)`.
 * `ui`: the views' side, each called when its part changes: error(message), loading({text, loaded, total} | null),
 * families(labels), showModel(), showSource(), modelShown(), syncControls(settings), busy(on),
 * progress({value, text}), memory({text, fits}), figure(data) and mark(key, value) (the host's data-* attributes,
 * read by tests and benches).
 */
export function createLmController({ state, onChange = () => {}, api, onNotice = () => {}, ui }) {
  const pool = createLmPool({ api, onNotice });
  const request = (type, body, transfer, index) => pool.request(type, body, transfer, index);
  request('families').then(({ families }) => ui.families(families.map((f) => f.label)), () => {}); // (no list: a load's own error says what failed)

  const m = { info: null, ids: null, results: new Map(), modelGen: 0 }; // the model, read live by the run loop (run.js)
  let customText = null;

  // A model loaded (`urls`: where from, [] for the reader's files): the state follows it, and the passage is tokenised.
  // `keepContext`: the state's lmContext belongs to this model (a link's, or the element's attribute); a model the
  // reader picks starts from its file's context.
  async function adopt(urls, keepContext) {
    state.modelUrl = urls;
    if (!keepContext) state.lmContext = 0;
    // A context the reader confirmed stays in the state (and the link) even when it is the file's: it was asked for.
    if (state.lmContext && state.lmContext === m.info.config.context && m.info.contextSource !== 'converter default') state.lmContext = 0;
    onChange();
    await encode();
  }
  const loader = createLoader({ pool, ui, m, stop: () => cancelCompute(), adopt, compute: () => compute() });
  const { loadUrls, loadFiles } = loader;

  // ---------- the passage ----------
  async function encode() {
    const { ids: got } = await request('encode', { text: customText ?? PASSAGE });
    m.ids = got;
  }
  async function retokenise() {
    cancelCompute();
    try {
      await encode();
      if (m.ids.length < 2) throw new RangeError('the passage must hold at least two tokens');
      m.results = new Map();
      ui.error('');
      ui.showModel();
      compute();
    } catch (e) {
      ui.error(`This passage cannot be used: ${e.message}`);
    }
  }

  // ---------- settings ----------
  const contextOf = () => state.lmContext || m.info.config.context;
  /** The file's context is its converter's default and the reader has not confirmed or corrected it yet. */
  const needsConfirmation = () => m.info?.contextSource === 'converter default' && !state.lmContext;
  function settings() {
    const context = contextOf();
    const top = maxTimes(m.ids.length, context);
    const times = Math.min(state.lmTimes, top);
    return { type: state.lmScaling, factor: state.lmFactor, context, times, top, length: lengthFor(times, m.ids.length, context),
      layer: Math.min(state.lmLayer, m.info.config.layers) - 1 };
  }

  const runner = createRun({ m, settings, needsConfirmation, pool, request, ui });
  const { compute, draw } = runner;
  const cancelCompute = runner.cancel;

  return {
    loadUrls,
    loadFiles,
    draw,
    /** Stops the forwards (the reader's Cancel, or another model being picked); `redraw` draws what stays. */
    cancel({ redraw = false } = {}) {
      cancelCompute();
      if (redraw) draw();
    },
    /** What the model view shows: the loaded model, the passage's token count and whose text it is, the settings. */
    model: () => ({ info: m.info, tokens: m.ids.length, ownText: customText != null, context: contextOf(), asking: needsConfirmation(), settings: settings() }),
    /** The reader's own text (`text`), or the story again (null). */
    async useText(text) {
      if (text == null) {
        customText = null;
        if (m.info) await retokenise();
        return;
      }
      if (!m.info) return;
      customText = text === PASSAGE ? null : text;
      await retokenise();
    },
    /** One of the view's controls (an LM_KEYS key) changed to `value` (coerced here). */
    set(key, value) {
      state[key] = coerce(key, value);
      onChange();
      ui.syncControls(settings());
      compute();
    },
    /** The reader typed the original context: false (and the error said) when it is not one. */
    setContext(text) {
      const n = contextFrom(text);
      if (n == null) {
        ui.error(contextError(text));
        return false;
      }
      ui.error('');
      state.lmContext = n === m.info.config.context && m.info.contextSource !== 'converter default' ? 0 : n;
      onChange();
      ui.showModel();
      compute();
      return true;
    },
    /** The reader confirmed (or corrected) a context the file flags as its converter's default. */
    confirmContext(text) {
      const n = contextFrom(text);
      if (n == null) {
        ui.error(contextError(text));
        return;
      }
      ui.error('');
      state.lmContext = n;
      onChange();
      ui.showModel();
      compute();
    },
    cancelLoad: loader.cancel,
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
      if (!m.info) return; // applied when a model is loaded
      if (changed.includes('lmContext')) ui.showModel();
      else ui.syncControls(settings());
      compute();
    },
    /** What the view shows, for tests and export: the model's facts, the settings and the computed series. */
    data() {
      if (!m.info || !m.ids) return null;
      const s = settings();
      const series = Object.fromEntries(ROPE_SCALINGS.map((t) => [t, findNll(m.results, s, t)]).filter(([, nll]) => nll).map(([t, nll]) => [t, Array.from(nll)]));
      return { config: m.info.config, description: m.info.description, contextSource: m.info.contextSource, confirming: needsConfirmation(), settings: s, tokens: m.ids.length, nll: series };
    },
    /** The bytes the first Worker's model memory can still give (for tests: a cancelled forward frees what it held). */
    async memoryLeft() {
      return (await request('memory', { length: 2 })).memory.available;
    },
    destroy() {
      loader.cancel();
      cancelCompute();
      runner.release();
      pool.terminate();
    },
  };
}
