// A module Web Worker that trains one model off the main thread (the
// protocol is train-core.js's).
//
//   const worker = new Worker(new URL('posenc/train-worker.js', import.meta.url), { type: 'module' });
//   worker.postMessage({ type: 'train', model: {encoding: 'rope', vocabSize: 11, maxLength: 32},
//                        train: {task: 'copy', steps: 300, batch: 16, length: 32}, snapshotMs: 1000 });
//   worker.onmessage = ({ data }) => ...  // 'progress', 'snapshot', 'done', 'error' (and 'alive', the answer to {type: 'hello'})
//   worker.postMessage({ type: 'stop' });
import { loadPosenc } from './index.js';
import { createTrainCore } from './train-core.js';

let pe = null;
const handle = createTrainCore((load) => (pe ??= loadPosenc(load)), (message, transfer) => self.postMessage(message, transfer));
self.onmessage = ({ data }) => (data?.type === 'hello' ? self.postMessage({ type: 'alive' }) : handle(data));
