// One training Worker per encoding (at most `concurrency` running at once on
// a 2-core machine), shipped checkpoints when they match the experiment, and
// the bookkeeping the training panel draws: step, loss history, source.
import { EXPERIMENT, trainTask } from './experiment.js';

/** Shipped checkpoints fetched from web/checkpoints/ (`base` overrides where they live). */
const SHIPPED = '../checkpoints/'; // a variable, so bundlers leave the URL to run time
export function fetchCheckpoints(base = new URL(SHIPPED, import.meta.url)) {
  return {
    async list() {
      try {
        const res = await fetch(new URL('index.json', base));
        if (!res.ok) return [];
        const list = await res.json();
        return Array.isArray(list) ? list.filter((f) => typeof f === 'string') : [];
      } catch {
        return [];
      }
    },
    async load(file) {
      const res = await fetch(new URL(file, base));
      return res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
    },
  };
}

/**
 * `checkpoints` is where shipped checkpoints come from: {list(): Promise<string[]>, load(file): Promise<Uint8Array|null>}.
 * `loadOptions` go to each training Worker's loadPosenc (e.g. a shared {wasmModule, build}).
 * `checkCheckpoint(bytes)` returns what a shipped checkpoint holds (`pe.readCheckpoint`: {config, trainedLength})
 * and throws if it will not load (truncated, corrupted, another version); that encoding then trains instead
 * and `onNotice(message)` says why.
 * A Worker that sends nothing for `stallMs` (killed, hung) is ended and its row marked as an error.
 */
export function createTrainer({ vocabSize, onModel, onProgress, concurrency = 2, checkpoints = fetchCheckpoints(), loadOptions,
  checkCheckpoint, onNotice = () => {}, stallMs = 60000 }) {
  const runs = new Map(); // encoding -> {status, step, steps, losses: [[step, loss]], accuracy, worker}
  let queue = [];
  let active = 0;
  let experiment = null;

  const run = (enc) => {
    if (!runs.has(enc)) runs.set(enc, { status: 'untrained', step: 0, steps: 0, losses: [], accuracy: NaN, worker: null });
    return runs.get(enc);
  };

  function modelConfig(enc, e) {
    return { encoding: enc, layers: e.layers, heads: e.heads, dModel: e.dModel, mlpRatio: EXPERIMENT.mlpRatio,
      vocabSize: vocabSize(e.task), maxLength: e.trainLength, seed: e.seed, learnedPolicy: enc === 'learned' ? 'clamp' : 'error' };
  }

  function pump() {
    while (active < concurrency && queue.length) {
      const enc = queue.shift();
      start(enc);
    }
  }

  function finish(enc, r, status) {
    r.worker?.terminate();
    r.worker = null;
    r.status = status;
    active--;
    onProgress(enc, r);
    pump();
  }

  // Workers die without a word when killed (terminate() elsewhere, a crashed tab process):
  // a run that has heard nothing for api.stallMs is given up, so its slot and the page move on.
  let watchdog = 0;
  function watch() {
    watchdog ||= setInterval(() => {
      for (const [enc, r] of runs) {
        if (r.worker && performance.now() - r.heard > api.stallMs) {
          r.error = `the training Worker stopped responding (nothing for ${Math.round(api.stallMs / 1000)} s)`;
          finish(enc, r, 'error');
        }
      }
      if (![...runs.values()].some((r) => r.worker)) {
        clearInterval(watchdog);
        watchdog = 0;
      }
    }, 1000);
  }

  function start(enc) {
    const e = experiment;
    const r = run(enc);
    active++;
    Object.assign(r, { status: 'training', step: 0, steps: e.steps, losses: [], accuracy: NaN });
    let worker;
    try {
      worker = new Worker(new URL('../lib/train-worker.js', import.meta.url), { type: 'module' });
    } catch (err) { // e.g. a page opened from file://, where Workers cannot start
      r.error = `training needs a Worker, which this page cannot start (${err.message})`;
      return finish(enc, r, 'error');
    }
    r.worker = worker;
    r.heard = performance.now();
    watch();
    worker.onmessage = ({ data }) => {
      if (r.worker !== worker) return;
      r.heard = performance.now();
      if (data.type === 'progress') {
        r.step = data.step;
        r.accuracy = data.accuracy;
        r.losses.push([data.step, data.loss]);
        onProgress(enc, r);
      } else if (data.type === 'snapshot') {
        onModel(enc, data.checkpoint, 'training');
      } else if (data.type === 'done') {
        onModel(enc, data.checkpoint, data.result.stopped ? 'stopped' : 'trained');
        finish(enc, r, data.result.stopped ? 'stopped' : 'trained');
      } else if (data.type === 'error') {
        r.error = data.message;
        finish(enc, r, 'error');
      }
    };
    worker.onerror = (ev) => {
      ev.preventDefault(); // handled here: the row says what happened
      if (r.worker !== worker) return;
      r.error = ev.message || 'the training Worker failed';
      finish(enc, r, 'error');
    };
    worker.postMessage({ type: 'train', snapshotMs: 2000, load: loadOptions, model: modelConfig(enc, e),
      train: { ...trainTask(e.task), steps: e.steps, batch: EXPERIMENT.batch, length: e.trainLength, lr: EXPERIMENT.lr,
        minLr: EXPERIMENT.minLr, warmup: Math.min(EXPERIMENT.warmup, Math.floor(e.steps / 10)), seed: e.seed, progressEvery: 5 } });
  }

  const notice = (file, why) => {
    onNotice(`The shipped checkpoint ${file} cannot be used (${why}); training instead.`);
    return false;
  };

  async function tryCheckpoint(enc, e, available) {
    const file = `${e.task}-${enc}.ckpt`;
    if (!available.includes(file)) return false;
    try {
      const bytes = await checkpoints.load(file);
      if (!bytes || !checkCheckpoint) return false;
      let info;
      try {
        info = checkCheckpoint(bytes);
      } catch (err) {
        return notice(file, err.message);
      }
      const c = info.config;
      if (c.encoding !== enc || c.layers !== e.layers || c.heads !== e.heads || c.dModel !== e.dModel ||
          info.trainedLength !== e.trainLength || c.vocabSize !== vocabSize(e.task)) return false;
      Object.assign(run(enc), { status: 'checkpoint', step: 0, steps: 0, losses: [] });
      onModel(enc, bytes, 'checkpoint');
      onProgress(enc, run(enc));
      return true;
    } catch {
      return false;
    }
  }

  function stop(enc) {
    const r = runs.get(enc);
    if (r?.worker) r.worker.postMessage({ type: 'stop' });
    else if (queue.includes(enc)) {
      queue = queue.filter((q) => q !== enc);
      r.status = 'stopped';
      onProgress(enc, r);
    }
  }

  function stopAll() {
    queue = [];
    for (const [enc, r] of runs) {
      if (r.worker) {
        r.worker.terminate();
        r.worker = null;
        active--;
      }
      if (r.status === 'queued' || r.status === 'training') r.status = 'stopped';
      onProgress(enc, r);
    }
  }

  const api = {
    runs,
    stallMs,
    modelConfig: (enc) => modelConfig(enc, experiment),
    /** Start an experiment: every encoding untrained at once, then checkpoints (unless `retrain`) or training. */
    async begin(e, encodings, { retrain = false } = {}) {
      stopAll();
      experiment = { ...e };
      for (const enc of encodings) {
        Object.assign(run(enc), { status: 'untrained', step: 0, steps: e.steps, losses: [], accuracy: NaN, error: null });
        onModel(enc, null, 'untrained');
        onProgress(enc, run(enc));
      }
      const available = retrain ? [] : await checkpoints.list();
      for (const enc of encodings) {
        if (await tryCheckpoint(enc, experiment, available)) continue;
        run(enc).status = 'queued';
        onProgress(enc, run(enc));
        queue.push(enc);
      }
      pump();
    },
    retrainOne(enc) {
      stop(enc);
      const r = run(enc);
      if (r.worker) {
        r.worker.terminate();
        r.worker = null;
        active--;
      }
      queue = queue.filter((q) => q !== enc);
      queue.unshift(enc);
      r.status = 'queued';
      onProgress(enc, r);
      pump();
    },
    stop,
    stopAll,
    busy: () => active > 0 || queue.length > 0,
  };
  return api;
}
