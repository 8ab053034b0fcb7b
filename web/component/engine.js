// What every <posenc-explorer> on a page shares: one compiled wasm module
// (fetched and compiled once, then posted to the Workers), one posenc
// instance on the main thread (task sizes), one sweep Worker for all of them,
// and where the shipped checkpoints come from. Where Workers
// cannot start (a page opened from file://), the sweep runs on the main
// thread through the same handler (sweep-core.js).
import { loadPosenc, compileWasm } from '../lib/index.js';
import { createSweepCore } from '../app/sweep-core.js';
import { fetchCheckpoints } from '../app/trainer.js';

const settings = {
  loadOptions: {}, // passed to loadPosenc (wasmUrl, locateFile, wasmBinary, build)
  workers: 'auto', // 'auto' | true | false
  checkpoints: null, // {list, load}; default: fetched from ../checkpoints/ next to this module
  explorerUrl: '../app/', // the full explorer, relative to this module; null: no link
};
let compiled = null;
let api = null;
let pool = null;

/** Change the shared settings; call before the first element starts. */
export function configure(options = {}) {
  if (compiled || pool) throw new Error('posenc-explorer: configure() must be called before the first element starts');
  Object.assign(settings, options);
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

export const workersAvailable = () =>
  settings.workers === true || (settings.workers === 'auto' && typeof Worker === 'function' && location.protocol !== 'file:');

/** A Worker-shaped object that runs the sweep handler on this thread. */
function inlineWorker() {
  const target = new EventTarget();
  const handle = createSweepCore(sharedApi, (data) => setTimeout(() => target.dispatchEvent(new MessageEvent('message', { data })), 0));
  target.postMessage = (data) => setTimeout(() => handle(data), 0);
  target.terminate = () => {};
  return target;
}

/** The sweep workers every element shares (one), given the compiled module. */
export function sweepPool() {
  pool ??= (async () => {
    if (!workersAvailable()) return [inlineWorker()];
    const options = await sharedLoadOptions();
    const worker = new Worker(new URL('../app/sweep-worker.js', import.meta.url), { type: 'module' });
    worker.postMessage({ type: 'load', options });
    return [worker];
  })();
  return pool;
}

export const checkpointSource = () => settings.checkpoints ?? fetchCheckpoints();

/** The full explorer's URL for a state's query string, or null. */
export function explorerLink(search) {
  if (settings.explorerUrl === null) return null;
  const base = new URL(settings.explorerUrl, import.meta.url); // not a literal: bundlers leave it to run time
  return new URL(search || '.', base).href;
}
