// The language model's handler, in its Worker (worker.js) or, where no Worker can start, on the page's thread
// (workers.js runs it there): it holds one model (pe.loadLanguageModel) and answers one message at a time.
//   {type: 'load', id, files}            -> {type: 'loaded', id, info} (the model's facts, and info.engine: where its
//                                           forwards run, {gpu: the adapter, or null and why not: reason})
//   {type: 'families', id}               -> {type: 'families', id, families} (the core's family table)
//   {type: 'encode', id, text}           -> {type: 'encoded', id, ids}
//   {type: 'stream', id, tokens, context, scaling, stats, mapLayer, mapPx, extend, dynamic}
//                                        -> {type: 'chunk', id, from, rows, nll} as each chunk of rows lands (nll[i]
//                                           predicts token from + i + 1; rows: the rows run so far), then
//                                           {type: 'forward', id, statsByLength, maps, peaks, px, ms, ran}
//      (stats: false, or the lengths at which the attention statistics are wanted; the API's lm.stream, its steps
//      sized to take about STEP_MS each, the first FIRST_ROWS rows: the page draws them at once, whatever the model's size)
//      (ran: 'gpu' or 'wasm'. A forward for the NLL alone runs on the GPU where WebGPU gives one and the model's steps
//      and weights are ones the GPU forward runs, in the same steps over its cache of keys and values; statistics and
//      maps run in wasm, and so does a context extension (extend) or dynamic NTK as generated (dynamic: 'cached'),
//      which the GPU forward does not run; a GPU failure falls back to wasm for this forward and the next ones)
//   {type: 'cancel', id, target}         -> {type: 'cancelled', id}: the stream `target` stops between two steps and
//                                           frees its memory; its own request answers {type: 'error', name: 'AbortError'}
//   {type: 'memory', id, length, stats, mapLayer, mapPx} -> {type: 'memory', id, memory} (lm.memory: a stream's peak)
// Any failure answers {type: 'error', id, message}: the API's own message (a TypeError or RangeError naming the problem).
import { openGpuForward } from '../../lib/gpu/forward.js';

/** The rows of a stream's first step: few, so that the first points come soon whatever the model's size. */
export const FIRST_ROWS = 8;
/** The most rows a step runs (the memory plan's working memory is sized for it). */
export const MAX_ROWS = 512;
/** The time a step aims at: long enough that posting its rows costs nothing, short enough to cancel at once. */
export const STEP_MS = 300;
/** The next step's rows after `rows` took `ms`: sized to take about STEP_MS, in multiples of 32, within [32, MAX_ROWS]. */
export const nextRows = (rows, ms) => Math.max(32, Math.min(MAX_ROWS, 32 * Math.round((rows * STEP_MS) / Math.max(1, ms) / 32)));
// Between two steps the handler lets the Worker's other messages in (a cancel, a memory question).
const yieldToMessages = () => new Promise((resolve) => setTimeout(resolve, 0));
const cancelled = () => Object.assign(new Error('cancelled'), { name: 'AbortError' });

export function createLmCore(api, post) {
  let lm = null, gpu = null, engine = null;
  const active = new Map(); // stream request id -> its lm.stream, or its GPU forward's
  const dropGpu = (reason) => {
    gpu?.delete();
    gpu = null;
    engine = { gpu: null, reason };
  };
  const answer = (type, id, body, transfer = []) => post({ type, id, ...body }, transfer);
  const run = {
    async load({ files }) {
      dropGpu('no model is loaded');
      lm?.delete();
      lm = null;
      const pe = await api();
      lm = await pe.loadLanguageModel(files);
      const opened = await openGpuForward(lm).catch((e) => ({ reason: `WebGPU failed (${e?.message ?? e})` }));
      if (opened.forward) [gpu, engine] = [opened, { gpu: opened.adapter, reason: '' }];
      else dropGpu(opened.reason);
      const { config, context, contextSource, hasTokenizer, tokenizerNote, tokenizerLabel, threads, threadsUnavailable } = lm;
      return { info: { config: { ...config }, context, contextSource, hasTokenizer, tokenizerNote, tokenizerLabel, description: lm.describe(), engine, threads, threadsUnavailable } };
    },
    async families() {
      return { families: (await (await api()).languageModelFamilies()).map((f) => ({ name: f.name, label: f.label })) };
    },
    encode({ text }) {
      if (!lm) throw new RangeError('no model is loaded');
      return { ids: Int32Array.from(lm.encode(text)) };
    },
    async stream({ id, tokens, context, scaling, stats, mapLayer, mapPx, extend = null, dynamic = 'call' }) {
      if (!lm) throw new RangeError('no model is loaded');
      lm.context = context;
      const t0 = performance.now();
      if (gpu && !stats && mapLayer == null && extend == null && dynamic === 'call') {
        const g = gpu.stream(tokens, { scaling, chunk: MAX_ROWS });
        active.set(id, g);
        try {
          for (let rows = FIRST_ROWS; g.done < g.length;) {
            const t = performance.now();
            const { from, nll } = await g.step(rows);
            if (active.get(id) !== g) throw cancelled();
            answer('chunk', id, { from, rows: g.done, nll }, [nll.buffer]);
            rows = nextRows(rows, performance.now() - t);
          }
          return { statsByLength: null, maps: null, peaks: null, px: 0, ms: performance.now() - t0, ran: 'gpu' };
        } catch (e) {
          if (active.get(id) !== g) throw cancelled(); // a step cut short by the cancel that deleted its buffers
          if (e instanceof TypeError || e instanceof RangeError) throw e; // the arguments' fault
          dropGpu(e?.message ?? String(e));
        } finally {
          if (active.get(id) === g) active.delete(id);
          g.delete();
        }
      }
      const opts = { scaling, chunk: MAX_ROWS, extend, dynamic, ...(stats ? { statsLengths: stats } : {}) };
      if (mapLayer != null) Object.assign(opts, { mapLayer, mapPx });
      const s = lm.stream(tokens, opts);
      active.set(id, s);
      try {
        for (let rows = FIRST_ROWS; s.done < s.length;) {
          const t = performance.now();
          const { from, nll } = s.step(rows);
          answer('chunk', id, { from, rows: s.done, nll }, [nll.buffer]);
          rows = nextRows(rows, performance.now() - t);
          await yieldToMessages();
          if (active.get(id) !== s) throw cancelled();
        }
        const r = s.result();
        return { statsByLength: r.statsByLength ?? null, maps: r.maps, peaks: r.peaks, px: r.px, ms: performance.now() - t0, ran: 'wasm' };
      } finally {
        if (active.get(id) === s) active.delete(id);
        s.delete();
      }
    },
    cancel({ target }) {
      active.get(target)?.delete();
      active.delete(target);
      return {};
    },
    memory({ length, stats, mapLayer, mapPx }) {
      if (!lm) throw new RangeError('no model is loaded');
      return { memory: lm.memory(length, { stats, chunk: MAX_ROWS, ...(mapLayer != null ? { mapLayer, mapPx } : {}) }) };
    },
  };
  const reply = { load: 'loaded', families: 'families', encode: 'encoded', stream: 'forward', cancel: 'cancelled', memory: 'memory' };
  return async (data) => {
    if (!data || !run[data.type]) return;
    try {
      const body = await run[data.type](data);
      const transfer = Object.values(body).filter((x) => ArrayBuffer.isView(x)).map((x) => x.buffer);
      answer(reply[data.type], data.id, body, transfer);
    } catch (e) {
      answer('error', data.id, { message: e?.message ?? String(e), name: e?.name });
    }
  };
}
