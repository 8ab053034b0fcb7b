// Loading a model for the model view (no DOM): from addresses the reader's browser fetches (fetch.js) or from the
// reader's own files, into the Workers (pool.js), with the loading line and its Cancel. Used by controller.js.
import { fetchPlan, classifyFiles } from './sources.js';
import { fetchModel, readDropped } from './fetch.js';
import { coerce } from '../shared/state.js';
import { holdBackground } from '../shared/foreground.js';

const MB = (n) => `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)} MB`;

/** Every ArrayBuffer under `files` (to transfer to the Worker). */
const buffersOf = (files) => [...new Set(Object.values(files).flatMap((x) => (ArrayBuffer.isView(x) ? [x.buffer]
  : x && typeof x === 'object' ? Object.values(x).filter(ArrayBuffer.isView).map((b) => b.buffer) : [])))];

/**
 * `m`: the controller's model ({info, results, modelGen} are set here); `stop()`: stops the forwards running;
 * `adopt(urls, keepContext)`: the controller takes the loaded model (the state, the passage's tokens); `compute()`:
 * the figures' forwards start; `ui`: as the controller's (error, loading, showModel, showSource, modelShown, mark).
 */
export function createLoader({ pool, ui, m, stop, adopt, compute }) {
  let loadAbort = null;
  // `keepContext`: see adopt.
  async function load(getFiles, urls, { keepContext = false } = {}) {
    loadAbort?.abort();
    stop();
    const abort = (loadAbort = new AbortController());
    let release = () => {};
    ui.error('');
    ui.loading({ text: 'starting…' });
    try {
      const files = await getFiles(abort.signal);
      if (abort.signal.aborted) throw new DOMException('cancelled', 'AbortError');
      ui.loading({ text: 'reading the model…' });
      const tLoad = performance.now(); // (data-load-ms: bench/lm-figure.js)
      release = holdBackground(); // reading the model (not its download, which needs no CPU): the sweep waits
      const gen = ++m.modelGen;
      m.info = null;
      const { info: got } = await pool.load(files, buffersOf(files));
      if (gen !== m.modelGen) return;
      if (!got.hasTokenizer) throw new RangeError(`this model has no tokenizer: ${got.tokenizerNote}`);
      m.info = got;
      m.results = new Map();
      await adopt(urls, keepContext);
      ui.mark('loadMs', String(Math.round(performance.now() - tLoad)));
      ui.showModel();
      compute();
    } catch (e) {
      if (e?.name === 'AbortError' && m.info && ui.modelShown()) { // cancelled while downloading: the model shown stays
        ui.error('Loading was cancelled; the model shown is unchanged.');
        compute();
        return;
      }
      m.info = null;
      ui.showSource();
      ui.error(e?.name === 'AbortError' ? 'Loading was cancelled.' : `This model cannot be used: ${e?.message ?? e}`);
    } finally {
      release();
      if (loadAbort === abort) loadAbort = null;
      ui.loading(null);
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
      ui.error(`This model cannot be used: ${e.message}`);
      return Promise.resolve();
    }
    return load((signal) => fetchModel(plan, { signal, onProgress: ({ file, loaded, total, done, count: n, cached }) => {
      ui.loading({ loaded, total, text: `${file}: ${MB(loaded)}${total ? ` of ${MB(total)}` : ''}${cached ? ' (from this browser\'s cache)' : ''}` +
        (n > 1 ? ` · file ${Math.min(done + 1, n)} of ${n}` : '') });
    } }), urls, { keepContext });
  }

  function loadFiles(list) {
    let picked;
    try {
      picked = classifyFiles([...list]);
    } catch (e) {
      ui.error(`This model cannot be used: ${e.message}`);
      return Promise.resolve();
    }
    const total = [...Object.values(picked.roles), ...picked.shards].reduce((s, f) => s + f.size, 0);
    return load(async () => {
      ui.loading({ text: `reading ${MB(total)} from your files…` });
      return readDropped(picked);
    }, []); // a local file is never put in the URL
  }

  return { loadUrls, loadFiles, cancel: () => loadAbort?.abort() };
}
