// The language model's Worker kind, as the Worker starter (shared/workers.js) takes it: its script (a literal
// `new URL('…', import.meta.url)`, which bundlers recognise and copy) and the same handler (core.js) for this thread
// where no Worker can start.
import { createLmCore } from './core.js';

export const LM_WORKER = {
  kind: 'lm',
  description: 'language model',
  script: () => new URL('./worker.js', import.meta.url),
  handler: (api, post) => createLmCore(() => api(), post),
};
