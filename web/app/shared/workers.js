// Starting the page's Workers wherever their scripts are served from, and
// running the same handler on this thread when no Worker can start. This
// module knows no kind of Worker: each kind declares itself where it is used
// ({kind, description, script, handler}: lab/sweep-kind.js, lab/train-kind.js,
// lm/kind.js) and is registered here when it first starts.
//
// - Same origin as the page: `new Worker(url, {type: 'module'})`.
// - Another origin (a CDN): browsers refuse `new Worker(crossOriginUrl)`
//   whatever its CORS headers say, so the Worker starts from a same-origin
//   `blob:` module that imports the script (which needs CORS, as npm CDNs send,
//   and a CSP `worker-src` that allows `blob:` and the script's origin: a module
//   Worker's imports are checked against worker-src).
// - Neither possible (file://, a CSP without blob:, the script missing): the
//   handler runs on the main thread, and `onFallback` is told the real cause.
//
// What is returned is Worker-shaped (postMessage, terminate, onmessage,
// onerror, addEventListener), and holds messages until the Worker has
// answered {type: 'hello'} with {type: 'alive'}, so callers never wait and
// never know which of the three it is.
// The kinds that have started, by name: {kind, description (words for messages), script() (its URL: a literal
// `new URL('…', import.meta.url)` in the kind's module, which bundlers recognise and copy; scripts/dist.js points
// them at the self-contained scripts of dist/assets/), handler(api, post) (the same work on this thread)}.
const KINDS = new Map();

const settings = { mode: 'auto', urls: {}, training: null, sweepWorkers: null };

/**
 * `mode`: 'auto' | true (always try a Worker) | false (always this thread); `sweep`/`train`: script URLs;
 * `training`: how many training Workers run at once on the page (null: navigator.hardwareConcurrency);
 * `sweepWorkers`: how many sweep Workers a sweep client starts (null: sweepConcurrency()'s default).
 */
export function configureWorkers({ mode, sweep, train, training, sweepWorkers } = {}) {
  if (mode !== undefined) settings.mode = mode;
  if (sweepWorkers !== undefined) {
    if (sweepWorkers !== null && !(Number.isInteger(sweepWorkers) && sweepWorkers >= 1 && sweepWorkers <= 16))
      throw new RangeError(`sweepWorkers must be null or an integer in [1, 16] (got ${String(sweepWorkers)})`);
    settings.sweepWorkers = sweepWorkers;
  }
  if (training !== undefined) {
    if (training !== null && !(Number.isInteger(training) && training >= 1 && training <= 256))
      throw new RangeError(`training must be null or an integer in [1, 256] (got ${String(training)})`);
    settings.training = training;
    grant();
  }
  if (sweep !== undefined) settings.urls.sweep = sweep === null ? null : String(sweep);
  if (train !== undefined) settings.urls.train = train === null ? null : String(train);
}

// Training Workers of every explorer on the page share one queue. At most navigator.hardwareConcurrency
// run at once (one per core, N rather than N - 1): training is the page's throughput work, and what else
// runs while models train is small (a training snapshot re-sweeps only the length on screen, and the
// main thread only draws), so on a 2-core machine N - 1 would leave half the machine idle for training
// (bench/train-page.js measures both).
const training = { active: 0, waiting: [] };
/** How many training Workers may run at once. */
export const trainingConcurrency = () => settings.training ?? Math.max(1, Math.min(256, globalThis.navigator?.hardwareConcurrency || 2));
function grant() {
  while (training.active < trainingConcurrency() && training.waiting.length) {
    const start = training.waiting.shift();
    training.active++;
    let released = false;
    start(() => {
      if (released) return;
      released = true;
      training.active--;
      grant();
    });
  }
}
/**
 * Ask for a training slot: `start(release)` is called once one is free (maybe at once); call
 * release() when that Worker ends. Returns cancel(), which withdraws a request not yet granted.
 */
export function requestTrainingSlot(start) {
  training.waiting.push(start);
  grant();
  return () => {
    const i = training.waiting.indexOf(start);
    if (i >= 0) training.waiting.splice(i, 1);
  };
}

// The sweep's Workers: one per core, at most 2 (each holds the models of its share of the encodings and
// computes their lengths; bench/explorer.js measures one new length for all encodings with 1 and 2). On this
// thread (file://, workers off) one handler: more would only take turns.
/** How many sweep Workers a sweep client starts. */
export const sweepConcurrency = () => (!tryWorkers() ? 1
  : settings.sweepWorkers ?? Math.max(1, Math.min(2, globalThis.navigator?.hardwareConcurrency || 1)));

/** Where `kind`'s Worker script is loaded from (configured, or next to the module that declares the kind). */
export const workerUrl = (kind) => new URL(settings.urls[kind] ?? KINDS.get(kind).script(), globalThis.location?.href).href;

const tryWorkers = () => settings.mode === true ||
  (settings.mode === 'auto' && typeof Worker === 'function' && globalThis.location?.protocol !== 'file:');

/** A module Worker for `url`: direct when same-origin, else through a blob: module that imports it. Throws if refused. */
function moduleWorker(url) {
  if (new URL(url).origin === globalThis.location?.origin) return new Worker(url, { type: 'module' });
  const blob = new Blob([`import ${JSON.stringify(url)};\n`], { type: 'text/javascript' });
  const blobUrl = URL.createObjectURL(blob);
  try {
    return new Worker(blobUrl, { type: 'module' });
  } finally {
    setTimeout(() => URL.revokeObjectURL(blobUrl), 30000); // long enough for the import to start
  }
}

/** Why the Worker script at `url` did not start, in words a page author can act on. */
async function explain(kind, url, cause) {
  const what = `The ${KINDS.get(kind).description} Worker script ${url}`;
  const crossOrigin = new URL(url).origin !== globalThis.location?.origin;
  let res;
  try {
    res = await fetch(url, { mode: 'cors', cache: 'no-store' });
  } catch (e) {
    return `${what} could not be fetched (${e.message}): ` + (crossOrigin
      ? 'it must be served with CORS (Access-Control-Allow-Origin), and a CSP connect-src must allow its origin'
      : 'check that it is served');
  }
  if (!res.ok) return `${what} was not found (HTTP ${res.status}): serve node_modules/posenc/dist/assets/ ` +
    `or set configure({ ${kind}WorkerUrl })`;
  if (crossOrigin) return `${what} is on another origin, and this page refused a Worker started from a blob: URL that ` +
    `imports it (a Content-Security-Policy worker-src must allow blob: and ${new URL(url).origin}) (${cause})`;
  return `${what} was refused by the browser (${cause}); a Content-Security-Policy worker-src must allow 'self'`;
}

const TIMEOUT_MS = 20000; // a Worker that has not started by then is given up

/**
 * Start a Worker of the kind `spec` declares ({kind, description, script, handler}; registered by its name on its
 * first start). `api()` gives a promise of the page's posenc API, used only when the handler runs on this thread.
 * `onFallback(message)` says why, when it does.
 */
export function startWorker(spec, { api, onFallback = () => {} }) {
  const { kind } = spec;
  if (KINDS.has(kind) && KINDS.get(kind) !== spec) throw new Error(`two Worker kinds are named ${kind}`);
  KINDS.set(kind, spec);
  const target = new EventTarget();
  let queue = [];
  let impl = null; // {post(data, transfer), terminate()}
  let dead = false;
  // onmessage/onerror as on a real Worker (also for events dispatched on the wrapper from outside)
  for (const type of ['message', 'error']) target.addEventListener(type, (ev) => target[`on${type}`]?.(ev));
  const emit = (ev) => target.dispatchEvent(ev);
  const flush = () => {
    for (const [data, transfer] of queue) impl.post(data, transfer);
    queue = [];
  };

  function inline() {
    if (dead) return;
    const post = (data) => setTimeout(() => dead || emit(new MessageEvent('message', { data })), 0);
    const handle = spec.handler(api, post);
    impl = { post: (data) => setTimeout(() => dead || handle(data), 0), terminate() {} };
    flush();
  }
  const fallBack = (cause) => {
    if (dead || impl) return;
    clearTimeout(timer);
    worker?.terminate();
    const url = workerUrl(kind);
    explain(kind, url, cause).then((why) => {
      onFallback(`${why}; running it on the page's main thread instead`);
      inline();
    });
  };

  let worker = null;
  let timer = 0;
  if (!tryWorkers()) inline();
  else {
    try {
      worker = moduleWorker(workerUrl(kind));
    } catch (e) {
      fallBack(e.message);
    }
  }
  if (worker) {
    worker.postMessage({ type: 'hello' }); // answered with {type: 'alive'} once the script runs
    timer = setTimeout(() => fallBack(`it did not start within ${TIMEOUT_MS / 1000} s`), TIMEOUT_MS);
    worker.addEventListener('message', (ev) => {
      if (impl) return emit(new MessageEvent('message', { data: ev.data }));
      if (ev.data?.type !== 'alive') return;
      clearTimeout(timer);
      impl = { post: (data, transfer) => worker.postMessage(data, transfer), terminate: () => worker.terminate() };
      flush();
    });
    worker.addEventListener('error', (ev) => {
      if (!impl) {
        ev.preventDefault?.();
        return fallBack(ev.message || 'the script failed to load');
      }
      const copy = new ErrorEvent('error', { message: ev.message, filename: ev.filename, lineno: ev.lineno, cancelable: true });
      emit(copy);
      if (copy.defaultPrevented) ev.preventDefault();
    });
  }

  target.onmessage = null;
  target.onerror = null;
  target.postMessage = (data, transfer = []) => (impl ? impl.post(data, transfer) : queue.push([data, transfer]));
  target.terminate = () => {
    dead = true;
    clearTimeout(timer);
    queue = [];
    (impl ?? { terminate: () => worker?.terminate() }).terminate();
  };
  return target;
}
