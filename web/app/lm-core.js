// The language model's handler, in its Worker (lm-worker.js) or, where no Worker can start, on the page's thread
// (workers.js runs it there): it holds one model (pe.loadLanguageModel) and answers one message at a time.
//   {type: 'load', id, files}            -> {type: 'loaded', id, info} (the model's facts, and info.engine: where its
//                                           forwards run, {gpu: the adapter, or null and why not: reason})
//   {type: 'families', id}               -> {type: 'families', id, families} (the core's family table)
//   {type: 'encode', id, text}           -> {type: 'encoded', id, ids}
//   {type: 'forward', id, tokens, context, scaling, stats, mapLayer, mapPx, keep, past}
//                                        -> {type: 'forward', id, nll, statsByLength, maps, peaks, px, cache, ms, ran}
//      (ran: 'gpu' or 'wasm'. A forward for the NLL alone runs on the GPU where WebGPU gives one and the model's steps
//      and weights are ones the GPU forward runs; statistics, maps and forwards in parts run in wasm; a GPU failure
//      falls back to wasm for this forward and the next ones)
//      (stats: false, or the lengths at which the attention statistics are wanted; keep and past: a forward in
//      parts, as the API's; cache: with keep, the keys and values a later part continues from)
// Any failure answers {type: 'error', id, message}: the API's own message (a TypeError or RangeError naming the problem).
import { openGpuForward } from '../lib/gpu/forward.js';

export function createLmCore(api, post) {
  let lm = null, gpu = null, engine = null;
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
      const { config, context, contextSource, hasTokenizer, tokenizerNote, threads, threadsUnavailable } = lm;
      return { info: { config: { ...config }, context, contextSource, hasTokenizer, tokenizerNote, description: lm.describe(), engine, threads, threadsUnavailable } };
    },
    async families() {
      return { families: (await (await api()).languageModelFamilies()).map((f) => ({ name: f.name, label: f.label })) };
    },
    encode({ text }) {
      if (!lm) throw new RangeError('no model is loaded');
      return { ids: Int32Array.from(lm.encode(text)) };
    },
    async forward({ tokens, context, scaling, stats, mapLayer, mapPx, keep, past }) {
      if (!lm) throw new RangeError('no model is loaded');
      lm.context = context;
      const t0 = performance.now();
      if (gpu && !stats && mapLayer == null && !keep && !past) {
        try {
          const { nll } = await gpu.forward(tokens, { scaling });
          return { nll, statsByLength: null, maps: null, peaks: null, px: 0, cache: null, ms: performance.now() - t0, ran: 'gpu' };
        } catch (e) {
          if (e instanceof TypeError || e instanceof RangeError) throw e; // the arguments' fault: the wasm forward would say the same
          dropGpu(e?.message ?? String(e));
        }
      }
      const opts = { scaling, ...(stats ? { statsLengths: stats } : {}) };
      if (mapLayer != null) Object.assign(opts, { mapLayer, mapPx });
      if (keep) opts.keep = keep;
      if (past) opts.past = past;
      const r = lm.forward(tokens, opts);
      return { nll: r.nll, statsByLength: r.statsByLength ?? null, maps: r.maps, peaks: r.peaks, px: r.px, cache: r.cache ?? null, ms: performance.now() - t0, ran: 'wasm' };
    },
  };
  const reply = { load: 'loaded', families: 'families', encode: 'encoded', forward: 'forward' };
  return async (data) => {
    if (!data || !run[data.type]) return;
    try {
      const body = await run[data.type](data);
      const transfer = [...Object.values(body), body.cache?.k, body.cache?.v].filter((x) => ArrayBuffer.isView(x)).map((x) => x.buffer);
      answer(reply[data.type], data.id, body, transfer);
    } catch (e) {
      answer('error', data.id, { message: e?.message ?? String(e), name: e?.name });
    }
  };
}
