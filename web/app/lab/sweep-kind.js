// The sweep's Worker kind, as the Worker starter (shared/workers.js) takes it: its script (a literal
// `new URL('…', import.meta.url)`, which bundlers recognise and copy) and the same handler for this thread where no
// Worker can start ('load' messages are for Workers, which load their own module).
import { createSweepCore } from './sweep-core.js';

export const SWEEP_WORKER = {
  kind: 'sweep',
  description: 'sweep',
  script: () => new URL('./sweep-worker.js', import.meta.url),
  handler(api, post) {
    const handle = createSweepCore(api, post);
    return (data) => (data?.type === 'load' ? undefined : handle(data));
  },
};
