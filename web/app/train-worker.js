// Trains one encoding's model off the main thread (one Worker per encoding).
// Like web/lib/train-worker.js, plus a checkpoint snapshot about once a
// second, so the page can show partially trained attention while it learns.
//
//   {type: 'train', model: {...createModel options}, train: {...pe.train options}, snapshotMs}
//   -> {type: 'progress', step, steps, loss, accuracy, seconds}
//   -> {type: 'snapshot', checkpoint}            (transferred)
//   -> {type: 'done', result, checkpoint}
//   {type: 'stop'}  cancels between steps; 'done' follows with result.stopped
import { loadPosenc } from '../lib/index.js';

let controller = null;

async function train({ model: modelOptions, train: trainOptions, snapshotMs = 1000 }) {
  const pe = await loadPosenc();
  controller = new AbortController();
  const model = pe.createModel(modelOptions);
  let last = performance.now();
  try {
    const result = await pe.train(model, {
      ...trainOptions,
      signal: controller.signal,
      onProgress: (p) => {
        self.postMessage({ type: 'progress', ...p });
        if (performance.now() - last > snapshotMs) {
          last = performance.now();
          const checkpoint = model.save();
          self.postMessage({ type: 'snapshot', checkpoint, step: p.step }, [checkpoint.buffer]);
        }
      },
    });
    const checkpoint = model.save();
    self.postMessage({ type: 'done', result, checkpoint }, [checkpoint.buffer]);
  } finally {
    model.delete();
    controller = null;
  }
}

self.onmessage = ({ data }) => {
  if (data?.type === 'stop') return controller?.abort();
  if (data?.type === 'train')
    train(data).catch((e) => self.postMessage({ type: 'error', name: e?.name ?? 'Error', message: e?.message ?? String(e) }));
};
