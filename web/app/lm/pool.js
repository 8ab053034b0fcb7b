// The language model's Workers (worker.js, through workers.js): one (on threads where the page is cross-origin
// isolated), or for a small model up to four that each hold their own copy of it, so that different scalings' forwards run at the same time on different cores. No
// SharedArrayBuffer (a blog that embeds the view cannot set the COOP/COEP headers it needs): each Worker gets the
// model's bytes and keeps its own weights (as much memory as the loaded model's describe() says: lm.hpp's policy).
import { startWorker } from '../shared/workers.js';
import { LM_WORKER } from './kind.js';

/** Above this many bytes of float32 weights a model gets one Worker (a copy per Worker would cost too much memory). */
export const POOL_WEIGHT_BYTES = 64e6;

/** How many Workers: navigator.hardwareConcurrency's count, 1 to 4; 1 for a model over POOL_WEIGHT_BYTES. */
export function poolSize(cores, weightBytes) {
  if (!(weightBytes <= POOL_WEIGHT_BYTES)) return 1;
  return Math.max(1, Math.min(4, Number.isInteger(cores) ? cores : 1));
}

/**
 * A pool of language-model Workers. request(type, body, transfer, index) answers as core.js does (rejecting with
 * the API's message); stream(body, index, onChunk) runs a forward in chunks on Worker `index`, calling onChunk({from,
 * rows, nll}) as each lands: {landed (a promise of its last answer), cancel()} (cancel stops it between two steps and
 * frees its memory; landed then rejects with an AbortError); load(files, buffers) loads the model into Worker 0 (the files' buffers transferred) and, for a
 * model small enough, into the others (copies), resolving to Worker 0's answer; `size` is how many hold the model.
 */
export function createLmPool({ api, onNotice = () => {} }) {
  let workers = [], nextId = 1;
  const pending = new Map(); // id -> {resolve, reject, w}
  function start(index) {
    const w = startWorker(LM_WORKER, { api, onFallback: index === 0 ? onNotice : () => drop(w) });
    w.onmessage = ({ data }) => {
      const p = pending.get(data?.id);
      if (!p) return;
      if (data.type === 'chunk') return void p.onChunk?.(data);
      pending.delete(data.id);
      if (data.type === 'error') p.reject(Object.assign(new Error(data.message), { kind: data.name }));
      else p.resolve(data);
    };
    // an error the handler did not answer (the Worker itself failed): its requests fail, so no caller waits forever
    w.onerror = (ev) => {
      for (const [id, p] of pending) if (p.w === w) {
        pending.delete(id);
        p.reject(new Error(`the language model's Worker failed: ${ev.message || 'no reason given'}`));
      }
    };
    return w;
  }
  // A helper Worker that cannot start is not replaced by the page's thread (Worker 0 is): it is left out.
  function drop(w) {
    w.terminate();
    workers = workers.filter((x) => x !== w);
    for (const [id, p] of pending) if (p.w === w) {
      pending.delete(id);
      p.reject(new Error('a helper Worker could not start'));
    }
  }
  function send(type, body, transfer, index, onChunk) {
    if (!workers.length) workers.push(start(0));
    const w = workers[Math.min(index, workers.length - 1)];
    const id = nextId++;
    const landed = new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, w, onChunk });
      w.postMessage({ type, id, ...body }, transfer);
    });
    return { id, w, landed };
  }
  const request = (type, body = {}, transfer = [], index = 0) => send(type, body, transfer, index).landed;
  return {
    get size() { return Math.max(1, workers.length); },
    request,
    stream(body, index, onChunk) {
      const { id, w, landed } = send('stream', body, [], index, onChunk);
      return {
        landed,
        cancel() {
          const p = pending.get(id);
          if (!p) return;
          p.onChunk = null; // nothing more is drawn from it
          if (workers.includes(w)) w.postMessage({ type: 'cancel', id: nextId++, target: id });
        },
      };
    },
    /** `files` as the API takes them; `buffers`: their ArrayBuffers (transferred to Worker 0). */
    async load(files, buffers) {
      const bytes = buffers.reduce((n, b) => n + b.byteLength, 0);
      // The file's bytes guess the weights' memory (F16, Q8_0 grow as float32): checked again with the loaded model's own figure.
      // A cross-origin isolated page runs each forward on threads in one Worker (the library's threaded module) instead.
      const want = globalThis.crossOriginIsolated === true ? 1 : poolSize(globalThis.navigator?.hardwareConcurrency, bytes);
      for (const w of workers.slice(1)) w.terminate();
      workers = workers.length ? workers.slice(0, 1) : [start(0)];
      for (let i = 1; i < want; i++) workers.push(start(i));
      // Copies for the helpers (a Worker that has not started yet holds its messages, not clones of them, so the
      // transfer to Worker 0 below would detach theirs).
      const helpers = workers.slice(1).map((w, i) => request('load', { files: structuredClone(files) }, [], i + 1).then(() => true, () => {
        drop(w);
        return false;
      }));
      const first = await request('load', { files }, buffers, 0);
      if (poolSize(want, first.info.description.weightBytes) < workers.length) for (const w of workers.slice(1)) drop(w);
      else await Promise.all(helpers);
      return first;
    },
    terminate() {
      for (const w of workers) w.terminate();
      workers = [];
      for (const [, p] of pending) p.reject(new Error('terminated'));
      pending.clear();
    },
  };
}
