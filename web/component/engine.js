// What every <posenc-explorer> on a page shares: one compiled wasm module
// (fetched and compiled once, then posted to the Workers), one posenc
// instance on the main thread (task sizes), one sweep Worker for all of them,
// and where the shipped checkpoints come from. Where Workers
// cannot start (a page opened from file://), the sweep runs on the main
// thread through the same handler (sweep-core.js).
import { loadPosenc, compileWasm } from '../lib/index.js';
import { fetchCheckpoints, shippedCheckpoints } from '../app/lab/trainer.js';
import { startWorker, configureWorkers } from '../app/shared/workers.js';
import { SWEEP_WORKER } from '../app/lab/sweep-kind.js';

const here = import.meta.url; // a variable base: bundlers rewrite only `new URL('literal', import.meta.url)`
const OPTIONS = ['loadOptions', 'workers', 'sweepWorkerUrl', 'trainWorkerUrl', 'checkpoints', 'explorerUrl'];
const settings = {
  loadOptions: {}, // passed to loadPosenc (wasmUrl, locateFile, wasmBinary, build)
  workers: 'auto', // 'auto' | true | false (false: everything on the main thread)
  checkpoints: null, // a directory URL (with index.json), or {list, load}; default: the ones next to this module
  explorerUrl: null, // the full explorer's URL for the "open in the explorer" link; null (the default): no link
};
let compiled = null;
let api = null;
let pool = null;
const notices = new Set(); // what went wrong in the shared parts, shown by every element

/**
 * Change the shared settings; call before the first element starts.
 * `sweepWorkerUrl`/`trainWorkerUrl`: where the Worker scripts are (default: next to this module,
 * `posenc/sweep-worker.js` and `posenc/train-worker.js` in the package).
 */
export function configure(options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('configure() takes an options object');
  for (const key of Object.keys(options))
    if (!OPTIONS.includes(key)) throw new TypeError(`configure(): unknown option ${JSON.stringify(key)} (allowed: ${OPTIONS.join(', ')})`);
  if (compiled || pool) throw new Error('posenc-explorer: configure() must be called before the first element starts');
  const { sweepWorkerUrl, trainWorkerUrl, workers, checkpoints, ...rest } = options;
  if (checkpoints !== undefined && checkpoints !== null && typeof checkpoints !== 'string' && !(checkpoints instanceof URL) &&
      (typeof checkpoints.list !== 'function' || typeof checkpoints.load !== 'function'))
    throw new TypeError('configure(): checkpoints must be a directory URL or {list(), load(file)}');
  Object.assign(settings, rest);
  if (workers !== undefined) settings.workers = workers;
  if (checkpoints !== undefined) settings.checkpoints = typeof checkpoints === 'string' || checkpoints instanceof URL
    ? fetchCheckpoints(checkpoints) : checkpoints;
  configureWorkers({ mode: settings.workers, sweep: sweepWorkerUrl, train: trainWorkerUrl });
}

/** loadPosenc options that reuse the page's compiled module: {wasmModule, build}. */
export async function sharedLoadOptions() {
  compiled ??= compileWasm(settings.loadOptions);
  const { module, build } = await compiled;
  return { wasmModule: module, build };
}

/** The page's one main-thread posenc API. */
export function sharedApi() {
  api ??= sharedLoadOptions().then(loadPosenc);
  return api;
}

/** Something every element should say (e.g. why the Workers run on the main thread), and the listeners to tell. */
const listeners = new Set();
export function onNotice(fn) {
  listeners.add(fn);
  for (const n of notices) fn(n);
  return () => listeners.delete(fn);
}
export function notify(message) {
  if (notices.has(message)) return;
  notices.add(message);
  console.warn(`posenc-explorer: ${message}`);
  for (const fn of listeners) fn(message);
}

/** The sweep workers every element shares (one), given the compiled module. */
export function sweepPool() {
  pool ??= (async () => {
    const options = await sharedLoadOptions();
    const worker = startWorker(SWEEP_WORKER, { api: sharedApi, onFallback: notify });
    worker.postMessage({ type: 'load', options });
    return [worker];
  })();
  return pool;
}

export const checkpointSource = () => (settings.checkpoints ??= shippedCheckpoints());

/**
 * The full explorer's URL for a state's query string, or null when no explorerUrl is configured. There is no
 * guess and no probe: a probe of ../app/ logged a failed request on every page of a host without it (a CDN, a
 * bundled copy of this module), and a CDN serves the page as text anyway. embed.html sets it (app/ is next to it).
 */
export function explorerLink(search) {
  if (settings.explorerUrl == null) return null;
  return new URL(search || '.', new URL(settings.explorerUrl, globalThis.location?.href)).href;
}
