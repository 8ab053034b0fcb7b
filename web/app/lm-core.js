// The language model's handler, in its Worker (lm-worker.js) or, where no Worker can start, on the page's thread
// (workers.js runs it there): it holds one model (pe.loadLanguageModel) and answers one message at a time.
//   {type: 'load', id, files}            -> {type: 'loaded', id, info} (the model's facts)
//   {type: 'families', id}               -> {type: 'families', id, families} (the core's family table)
//   {type: 'encode', id, text}           -> {type: 'encoded', id, ids}
//   {type: 'forward', id, tokens, context, scaling, stats, mapLayer, mapPx, keep, past}
//                                        -> {type: 'forward', id, nll, statsByLength, maps, peaks, px, cache, ms}
//      (stats: false, or the lengths at which the attention statistics are wanted; keep and past: a forward in
//      parts, as the API's; cache: with keep, the keys and values a later part continues from)
// Any failure answers {type: 'error', id, message}: the API's own message (a TypeError or RangeError naming the problem).
export function createLmCore(api, post) {
  let lm = null;
  const answer = (type, id, body, transfer = []) => post({ type, id, ...body }, transfer);
  const run = {
    async load({ files }) {
      lm?.delete();
      lm = null;
      const pe = await api();
      lm = await pe.loadLanguageModel(files);
      const { config, context, contextSource, hasTokenizer, tokenizerNote, threads, threadsUnavailable } = lm;
      return { info: { config: { ...config }, context, contextSource, hasTokenizer, tokenizerNote, description: lm.describe(), threads, threadsUnavailable } };
    },
    async families() {
      return { families: (await (await api()).languageModelFamilies()).map((f) => ({ name: f.name, label: f.label })) };
    },
    encode({ text }) {
      if (!lm) throw new RangeError('no model is loaded');
      return { ids: Int32Array.from(lm.encode(text)) };
    },
    forward({ tokens, context, scaling, stats, mapLayer, mapPx, keep, past }) {
      if (!lm) throw new RangeError('no model is loaded');
      lm.context = context;
      const t0 = performance.now();
      const opts = { scaling, ...(stats ? { statsLengths: stats } : {}) };
      if (mapLayer != null) Object.assign(opts, { mapLayer, mapPx });
      if (keep) opts.keep = keep;
      if (past) opts.past = past;
      const r = lm.forward(tokens, opts);
      return { nll: r.nll, statsByLength: r.statsByLength ?? null, maps: r.maps, peaks: r.peaks, px: r.px, cache: r.cache ?? null, ms: performance.now() - t0 };
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
