// Training one model, as a message handler: the body of train-worker.js, and
// what runs on the page's main thread where no Worker can start.
//
//   {type: 'train', model: {...}, train: {...}, load?, snapshotMs?}
//   {type: 'stop'}                       cancels between steps; 'done' follows with result.stopped
//   -> {type: 'progress', step, steps, loss, accuracy, seconds, heldOut}   (heldOut: train()'s latest held-out check, with train.stop)
//   -> {type: 'snapshot', step, checkpoint: Uint8Array}   (only with snapshotMs)
//   -> {type: 'done', result, checkpoint: Uint8Array}
//   -> {type: 'error', name, message}
//
// With snapshotMs, a checkpoint of the model as it trains is sent at most
// that often, so a page can show partially trained attention while it learns.

/**
 * `api(load)` returns a promise of a loaded posenc API (`load`: the message's loadPosenc options);
 * `post(message, transfer)` sends back. Returns handle(message).
 */
export function createTrainCore(api, post) {
  let controller = null;

  async function train({ model: modelOptions, train: trainOptions = {}, load, snapshotMs }) {
    const pe = await api(load ?? {});
    controller = new AbortController();
    const model = pe.createModel(modelOptions);
    let last = performance.now();
    const send = (type, extra) => {
      const checkpoint = model.save();
      post({ type, ...extra, checkpoint }, [checkpoint.buffer]);
    };
    try {
      const result = await pe.train(model, {
        ...trainOptions,
        signal: controller.signal,
        onProgress: (p) => {
          post({ type: 'progress', ...p });
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

  return (data) => {
    if (data?.type === 'stop') return controller?.abort();
    if (data?.type !== 'train') return post({ type: 'error', name: 'TypeError', message: `unknown message type ${String(data?.type)}` });
    train(data).catch((e) => post({ type: 'error', name: e?.name ?? 'Error', message: e?.message ?? String(e) }));
  };
}
