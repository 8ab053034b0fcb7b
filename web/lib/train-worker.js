// A module Web Worker that trains one model off the main thread.
//
//   const worker = new Worker(new URL('posenc/web/lib/train-worker.js', import.meta.url), { type: 'module' });
//   worker.postMessage({ type: 'train', model: {encoding: 'rope', vocabSize: 11, maxLength: 32},
//                        train: {task: 'copy', steps: 300, batch: 16, length: 32}, snapshotMs: 1000 });
//   worker.onmessage = ({ data }) => ...  // {type: 'progress', step, steps, loss, accuracy, seconds}
//                                         // {type: 'snapshot', step, checkpoint: Uint8Array} (only with snapshotMs)
//                                         // {type: 'done', result, checkpoint: Uint8Array}
//                                         // {type: 'error', name, message}
//   worker.postMessage({ type: 'stop' });  // cancels between steps; 'done' follows with result.stopped
//
// With snapshotMs, a checkpoint of the model as it trains is sent at most
// that often, so a page can show partially trained attention while it learns.
import { loadPosenc } from './index.js';

let pe = null;
let controller = null;

async function train({ model: modelOptions, train: trainOptions = {}, load, snapshotMs }) {
  pe ??= await loadPosenc(load ?? {});
  controller = new AbortController();
  const model = pe.createModel(modelOptions);
  let last = performance.now();
  const send = (type, extra) => {
    const checkpoint = model.save();
    self.postMessage({ type, ...extra, checkpoint }, [checkpoint.buffer]);
  };
  try {
    const result = await pe.train(model, {
      ...trainOptions,
      signal: controller.signal,
      onProgress: (p) => {
        self.postMessage({ type: 'progress', ...p });
        if (snapshotMs && performance.now() - last > snapshotMs) {
          last = performance.now();
          send('snapshot', { step: p.step });
        }
      },
    });
    send('done', { result });
  } finally {
    model.delete();
    controller = null;
  }
}

self.onmessage = ({ data }) => {
  if (data?.type === 'stop') return controller?.abort();
  if (data?.type !== 'train') return self.postMessage({ type: 'error', name: 'TypeError', message: `unknown message type ${String(data?.type)}` });
  train(data).catch((e) => self.postMessage({ type: 'error', name: e?.name ?? 'Error', message: e?.message ?? String(e) }));
};
