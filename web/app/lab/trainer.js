// One training Worker per encoding (the page's training Workers share one
// queue in workers.js: at most navigator.hardwareConcurrency at once), shipped
// checkpoints when they match the experiment, and the bookkeeping the training
// panel draws: step, loss history, source.
import { CONFIG_SCHEMA } from '../../lib/index.js';
import { EXPERIMENT, experimentModel, trainTask, heldOutStop } from '../shared/experiment.js';
import { SCHEMA } from '../shared/state.js';
import { startWorker, requestTrainingSlot } from '../shared/workers.js';
import { TRAIN_WORKER } from './train-kind.js';

const here = import.meta.url; // a variable base: bundlers rewrite only `new URL('literal', import.meta.url)`
const SERVE_HINT = 'copy node_modules/posenc/dist/checkpoints/ to your site and call configure({ checkpoints: \'/that/url/\' }) ' +
  'before the first element';

async function fetchBytes(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`${url} could not be fetched (${e.message}; from another origin it needs CORS)`);
  }
  if (!res.ok) throw new Error(`${url} was not found (HTTP ${res.status})`);
  return new Uint8Array(await res.arrayBuffer());
}

/**
 * Shipped checkpoints from a directory URL holding `index.json` (a list of file names) and the files,
 * e.g. `fetchCheckpoints('https://cdn.jsdelivr.net/npm/posenc/dist/checkpoints/')`.
 * list() and load() reject with an Error that says what was not found and how to serve it.
 */
export function fetchCheckpoints(base) {
  const dir = new URL(base, globalThis.location?.href);
  if (!dir.pathname.endsWith('/')) dir.pathname += '/';
  return {
    where: dir.href,
    async list() {
      let list;
      try {
        list = JSON.parse(new TextDecoder().decode(await fetchBytes(new URL('index.json', dir))));
      } catch (e) {
        throw new Error(`The shipped checkpoints were not found: ${e.message}. Serve dist/checkpoints/ of the posenc package there.`);
      }
      return Array.isArray(list) ? list.filter((f) => typeof f === 'string' && f.endsWith('.ckpt')) : [];
    },
    load: (file) => fetchBytes(new URL(file, dir)),
  };
}

/**
 * The checkpoints that ship next to this module. web/checkpoints/index.js (written by
 * scripts/checkpoint-index.js) names each file with a literal `new URL('./file', import.meta.url)`,
 * so a bundler (webpack, Vite, Parcel, Rollup with its import-meta-assets plugin) copies them all.
 */
export function shippedCheckpoints() {
  let index = null;
  const where = new URL('../../checkpoints/', here).href;
  const files = () => (index ??= import('../../checkpoints/index.js').then((m) => m.default, (e) => {
    throw new Error(`The shipped checkpoints were not found next to posenc (${where}index.js: ${e.message}). ` +
      `If a bundler built this page, ${SERVE_HINT}.`);
  }));
  return {
    where,
    list: async () => Object.keys(await files()),
    async load(file) {
      const url = (await files())[file];
      if (!url) throw new Error(`${file} is not a shipped checkpoint`);
      try {
        return await fetchBytes(url);
      } catch (e) {
        throw new Error(`The shipped checkpoint ${e.message}. If a bundler built this page, ${SERVE_HINT}.`);
      }
    },
  };
}

/**
 * What a training Worker is asked to do for encoding `enc` in experiment `e` (the state's task, seed,
 * trainLength, layers, heads, dModel, steps): {model, train}, the model config and the train() options of
 * train-core.js. `vocabSize` is the task's vocabulary size. `e.steps` is the budget (the cosine schedule
 * spans it); training stops early at the experiment's held-out target (experiment.js heldOutStop, as
 * `npm run train`). bench/train-page.js runs the same request in Node.
 */
export function trainRequest(enc, e, { vocabSize }) {
  return {
    model: { ...experimentModel(enc), ...sampledRange(enc, e.trainLength), encoding: enc, layers: e.layers, heads: e.heads, dModel: e.dModel, mlpRatio: EXPERIMENT.mlpRatio,
      vocabSize, maxLength: e.trainLength, seed: e.seed, learnedPolicy: enc === 'learned' ? 'clamp' : 'error' },
    train: { ...trainTask(e.task), steps: e.steps, batch: EXPERIMENT.batch, length: e.trainLength, lr: EXPERIMENT.lr,
      minLr: EXPERIMENT.minLr, warmup: Math.min(EXPERIMENT.warmup, Math.floor(e.steps / 10)), seed: e.seed, progressEvery: 5,
      stop: heldOutStop(e.task, e.seed) },
  };
}

// A randomized encoding samples its positions from [0, randomLength) and refuses longer sequences. The page's
// sweep reaches trainLength x the largest sweep factor, so the range covers that: the default 1024 (the
// experiment's) up to trainLength 64, 2048 at trainLength 128. The page never offers a length its models refuse.
const RANDOM_LENGTH = CONFIG_SCHEMA.find((f) => f.name === 'randomLength');
const sampledRange = (enc, trainLength) => (RANDOM_LENGTH.encodings.includes(enc)
  ? { randomLength: Math.max(RANDOM_LENGTH.default, trainLength * Math.max(...SCHEMA.sweepFactor.values)) } : {});

const acc = (x) => x.toFixed(3);

// A run's numbers before its first step (or after its model is replaced).
const FRESH = { step: 0, accuracy: NaN, stop: null, heldOut: null, stepsToTarget: null, learned: null };

/**
 * A run's latest held-out check against its stop rule, in words: "held-out 0.812 < 0.970", or for markov
 * "held-out loss 1.203 > 1.032" (the oracle's loss on the held-out batch + the margin). null before the first check.
 */
export function heldOutWords(r) {
  const h = r?.heldOut;
  if (!h || !r.stop) return null;
  if (h.oracleLoss === null) return `check on new sequences ${acc(h.accuracy)} ${h.met ? '≥' : '<'} ${acc(r.stop.accuracy)}`;
  return `loss on new sequences ${acc(h.loss)} ${h.met ? '≤' : '>'} ${acc(h.oracleLoss + r.stop.lossAboveOracle)}`;
}

/**
 * How a finished run (status 'trained') ended, in words: "stopped early at step 1200" (its held-out check met the
 * stop rule) or "ran all 5000 steps". null unless the run has finished with a held-out check. This is when training
 * stopped, not whether the model learned: that verdict is the page's one (evaluations.js verdict).
 */
export function learnedWords(r) {
  if (typeof r?.learned !== 'boolean' || !heldOutWords(r)) return null;
  return r.learned ? `stopped early at step ${r.stepsToTarget}` : `ran all ${r.step} steps`;
}

/**
 * `checkpoints` is where shipped checkpoints come from: {list(): Promise<string[]>, load(file): Promise<Uint8Array|null>}.
 * `loadOptions` go to each training Worker's loadPosenc (e.g. a shared {wasmModule, build}).
 * `api()` gives the page's own posenc API (a promise), for training on this thread where no Worker can start.
 * `checkCheckpoint(bytes)` returns what a shipped checkpoint holds (`pe.readCheckpoint`: {config, trainedLength})
 * and throws if it will not load (truncated, corrupted, another version); that encoding then trains instead
 * and `onNotice(message)` says why.
 * A Worker that sends nothing for `stallMs` (killed, hung) is ended and its row marked as an error.
 * `concurrency` caps this trainer's own Workers (the page-wide cap is workers.js's trainingConcurrency()).
 * `snapshotMs`: how often a training Worker sends the model as it trains.
 */
export function createTrainer({ vocabSize, onModel, onProgress, concurrency = Infinity, checkpoints = shippedCheckpoints(), loadOptions, api: mainApi,
  checkCheckpoint, onNotice = () => {}, stallMs = 60000, snapshotMs = 2000 }) {
  // encoding -> {status, step, steps, losses: [[step, loss]], accuracy, worker, release, and from the held-out early stop:
  // stop (the rule asked for), heldOut (the latest check), stepsToTarget, learned (true / false once trained, else null)}
  const runs = new Map();
  const slots = createSlots(concurrency, (enc, release) => start(enc, release));
  let experiment = null;
  // Bumped by stopAll (and so by every begin): a begin still awaiting checkpoints when a newer begin or
  // stopAll came gives up, instead of queueing its encodings a second time (two runs of one encoding
  // would share a slot count and leave the trainer busy for ever).
  let generation = 0;

  const run = (enc) => {
    if (!runs.has(enc)) runs.set(enc, { status: 'untrained', steps: 0, ...FRESH, losses: [], worker: null });
    return runs.get(enc);
  };

  const request = (enc, e) => trainRequest(enc, e, { vocabSize: vocabSize(e.task) });

  function end(r) {
    r.worker?.terminate();
    r.worker = null;
    slots.give(r);
  }

  function finish(enc, r, status) {
    end(r);
    r.status = status;
    onProgress(enc, r);
    slots.pump();
  }

  // Workers die without a word when killed (terminate() elsewhere, a crashed tab process): a run that has heard
  // nothing for api.stallMs is given up, so its slot and the page move on.
  const watch = createWatchdog(runs, () => api.stallMs, (enc, r) => finish(enc, r, 'error'));

  function start(enc, release) {
    const e = experiment;
    const r = run(enc);
    end(r); // (a run of this encoding still holding a slot gives it back first)
    slots.hold(r, release);
    const req = request(enc, e);
    Object.assign(r, { status: 'training', steps: e.steps, ...FRESH, losses: [], stop: req.train.stop });
    r.worker = startTrainingWorker(r, { type: 'train', snapshotMs, load: loadOptions, ...req }, {
      api: mainApi,
      onFallback: (why) => fellBack(why),
      onMessage: (data) => {
        const status = applyMessage(enc, r, data, { onModel, onProgress });
        if (status) finish(enc, r, status);
      },
      onFail: (message) => {
        r.error = message;
        finish(enc, r, 'error');
      },
    });
    watch();
  }

  // Said once: the training Workers could not start, so models train on this thread.
  let fallbackSaid = false;
  const fellBack = (why) => {
    if (!fallbackSaid) onNotice(`${why}.`);
    fallbackSaid = true;
  };

  // `current()`: whether the begin that asked is still the latest (after the fetch, a superseded one applies nothing).
  async function tryCheckpoint(enc, e, available, current) {
    const got = await shippedFor(enc, e, available, current, { checkpoints, checkCheckpoint, vocabSize, onNotice });
    if (got === SUPERSEDED) return true; // (begin returns: nothing of it is applied)
    if (!got) return false;
    try {
      Object.assign(run(enc), { status: 'checkpoint', steps: 0, ...FRESH, losses: [] });
      onModel(enc, got, 'checkpoint');
      onProgress(enc, run(enc));
      return true;
    } catch (err) {
      onNotice(cannotUse(`${e.task}-${enc}.ckpt`, err.message));
      return false;
    }
  }

  function stop(enc) {
    const r = runs.get(enc);
    if (r?.worker) r.worker.postMessage({ type: 'stop' });
    else if (slots.queue.includes(enc)) {
      slots.remove(enc);
      r.status = 'stopped';
      onProgress(enc, r);
    }
  }

  function stopAll() {
    generation++;
    slots.clear();
    for (const [enc, r] of runs) {
      end(r);
      if (r.status === 'queued' || r.status === 'training') r.status = 'stopped';
      onProgress(enc, r);
    }
  }

  const api = {
    runs,
    stallMs,
    modelConfig: (enc) => request(enc, experiment).model,
    /** Start an experiment: every encoding untrained at once, then checkpoints (unless `retrain`) or training. */
    async begin(e, encodings, { retrain = false } = {}) {
      stopAll();
      const gen = generation;
      experiment = { ...e };
      for (const enc of encodings) {
        Object.assign(run(enc), { status: 'untrained', steps: e.steps, ...FRESH, losses: [], error: null });
        onModel(enc, null, 'untrained');
        onProgress(enc, run(enc));
      }
      let available = [];
      if (!retrain) {
        try {
          available = await checkpoints.list();
        } catch (err) {
          onNotice(`${err.message} Training in your browser instead.`);
        }
      }
      for (const enc of encodings) {
        if (gen !== generation) return; // superseded
        if (await tryCheckpoint(enc, experiment, available, () => gen === generation)) continue;
        if (gen !== generation) return;
        run(enc).status = 'queued';
        onProgress(enc, run(enc));
        slots.queue.push(enc);
      }
      slots.pump();
    },
    retrainOne(enc) {
      stop(enc);
      const r = run(enc);
      end(r);
      slots.remove(enc);
      slots.queue.unshift(enc);
      r.status = 'queued';
      onProgress(enc, r);
      slots.pump();
    },
    stop,
    stopAll,
    busy: slots.busy,
  };
  return api;
}

/**
 * This trainer's share of the page's training slots (workers.js): the queue of encodings waiting, at most
 * `concurrency` running, and one slot request outstanding at a time. When a slot is granted the queue's head
 * starts (`start(enc, release)`; retrainOne may have changed the head); a run holds its slot until `give(run)`.
 */
function createSlots(concurrency, start) {
  let active = 0;
  let asking = null; // cancel() of this trainer's outstanding slot request
  const slots = {
    queue: [],
    pump() {
      if (asking || active >= concurrency || !slots.queue.length) return;
      let granted = false;
      const cancel = requestTrainingSlot((release) => {
        granted = true;
        asking = null;
        if (!slots.queue.length || active >= concurrency) return release();
        start(slots.queue.shift(), release);
        slots.pump();
      });
      if (!granted) asking = cancel; // (a free slot is granted at once, inside requestTrainingSlot)
    },
    hold(r, release) {
      active++;
      r.release = release;
    },
    give(r) {
      if (!r.release) return;
      r.release();
      r.release = null;
      active--;
    },
    remove(enc) {
      slots.queue = slots.queue.filter((q) => q !== enc);
    },
    clear() {
      slots.queue = [];
      asking?.();
      asking = null;
    },
    busy: () => active > 0 || slots.queue.length > 0,
  };
  return slots;
}

/**
 * A training Worker for run `r` (its `worker`, whose messages count while it is still the run's), sent `request`.
 * Each message it sends marks the run as heard and goes to `onMessage(data)`; a Worker that fails gives
 * `onFail(message)`. `api` and `onFallback`: startWorker's (training on this thread where no Worker can start).
 */
function startTrainingWorker(r, request, { api, onFallback, onMessage, onFail }) {
  const worker = startWorker(TRAIN_WORKER, { api, onFallback });
  r.worker = worker;
  r.heard = performance.now();
  worker.onmessage = ({ data }) => {
    if (r.worker !== worker) return;
    r.heard = performance.now();
    onMessage(data);
  };
  worker.onerror = (ev) => {
    ev.preventDefault(); // handled here: the row says what happened
    if (r.worker !== worker) return;
    onFail(ev.message || 'the training Worker failed');
  };
  worker.postMessage(request);
  return worker;
}

/**
 * Watches `runs` for Workers that have gone quiet: every second while any run has a Worker, a run that has heard
 * nothing for `stallMs()` gets its error and `onStall(enc, run)`. Returns watch(), called when a Worker starts.
 */
function createWatchdog(runs, stallMs, onStall) {
  let timer = 0;
  return function watch() {
    timer ||= setInterval(() => {
      for (const [enc, r] of runs) {
        if (r.worker && performance.now() - r.heard > stallMs()) {
          r.error = `the training Worker stopped responding (nothing for ${Math.round(stallMs() / 1000)} s)`;
          onStall(enc, r);
        }
      }
      if (![...runs.values()].some((r) => r.worker)) {
        clearInterval(timer);
        timer = 0;
      }
    }, 1000);
  };
}

/**
 * A training Worker's message `data` applied to run `r` of `enc` (progress, a snapshot of the model, the end or an
 * error), with onModel and onProgress called as the trainer's callers expect. Returns the status the run ends with
 * ('trained', 'stopped', 'error'), or null while it goes on.
 */
function applyMessage(enc, r, data, { onModel, onProgress }) {
  if (data.type === 'progress') {
    r.step = data.step;
    r.accuracy = data.accuracy;
    r.heldOut = data.heldOut ?? null;
    r.losses.push([data.step, data.loss]);
    onProgress(enc, r);
  } else if (data.type === 'snapshot') {
    onModel(enc, data.checkpoint, 'training');
  } else if (data.type === 'done') {
    const { steps, heldOut, stepsToTarget, stopped } = data.result;
    Object.assign(r, { step: steps, heldOut, stepsToTarget, learned: stopped ? null : stepsToTarget !== null });
    onModel(enc, data.checkpoint, data.result.stopped ? 'stopped' : 'trained');
    return data.result.stopped ? 'stopped' : 'trained';
  } else if (data.type === 'error') {
    r.error = data.message;
    return 'error';
  }
  return null;
}

const SUPERSEDED = Symbol('superseded');
const cannotUse = (file, why) => `The shipped checkpoint ${file} cannot be used (${why}); training instead.`;

/**
 * The shipped checkpoint of `enc` for experiment `e` when one is `available` and matches it: its bytes; null when
 * there is none or it does not match (the encoding trains); SUPERSEDED when `current()` turned false while it was
 * fetched. A checkpoint that cannot be read is said with `onNotice` (null: it trains instead).
 */
async function shippedFor(enc, e, available, current, { checkpoints, checkCheckpoint, vocabSize, onNotice }) {
  const file = `${e.task}-${enc}.ckpt`;
  if (!available.includes(file)) return null;
  const notice = (why) => {
    onNotice(cannotUse(file, why));
    return null;
  };
  try {
    const bytes = await checkpoints.load(file);
    if (!current()) return SUPERSEDED;
    if (!bytes || !checkCheckpoint) return null;
    let info;
    try {
      info = checkCheckpoint(bytes);
    } catch (err) {
      return notice(err.message);
    }
    const c = info.config;
    if (c.encoding !== enc || c.layers !== e.layers || c.heads !== e.heads || c.dModel !== e.dModel ||
        info.trainedLength !== e.trainLength || c.vocabSize !== vocabSize(e.task)) return null;
    return bytes;
  } catch (err) {
    return notice(err.message);
  }
}
