// The training Worker kind, as the Worker starter (shared/workers.js) takes it: the library's training Worker
// script (a literal `new URL('…', import.meta.url)`, which bundlers recognise and copy) and its handler for this
// thread where no Worker can start.
import { createTrainCore } from '../../lib/train-core.js';

export const TRAIN_WORKER = {
  kind: 'train',
  description: 'training',
  script: () => new URL('../../lib/train-worker.js', import.meta.url),
  handler: (api, post) => createTrainCore(() => api(), post),
};
