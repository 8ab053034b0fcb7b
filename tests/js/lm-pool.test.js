// The language model's Worker pool (web/app/lm/pool.js) with stand-in Workers: a Worker that fails (an error its
// handler did not answer) rejects the requests it holds, and only those, so that the view's loop (and the page's
// sweep, which waits while it runs) never waits forever.
import { jest } from '@jest/globals';

const started = [];
jest.unstable_mockModule('../../web/app/shared/workers.js', () => ({
  startWorker: () => {
    const w = { sent: [], postMessage(data) { this.sent.push(data); }, terminate() {}, onmessage: null, onerror: null };
    started.push(w);
    return w;
  },
}));
const { createLmPool } = await import('../../web/app/lm/pool.js');

test('a Worker that fails rejects its own pending requests with a message; the others still answer', async () => {
  const pool = createLmPool({ api: async () => null });
  const first = pool.request('encode', { text: 'a' });
  const [w] = started;
  const second = pool.request('encode', { text: 'b' });
  w.onmessage({ data: { type: 'encoded', id: w.sent[1].id, ids: [1] } });
  await expect(second).resolves.toMatchObject({ ids: [1] });
  w.onerror({ message: 'out of memory' });
  await expect(first).rejects.toThrow("the language model's Worker failed: out of memory");
  const third = pool.request('encode', { text: 'c' }); // the pool still takes requests
  w.onmessage({ data: { type: 'error', id: w.sent[2].id, message: 'no model is loaded', name: 'RangeError' } });
  await expect(third).rejects.toThrow('no model is loaded');
});
