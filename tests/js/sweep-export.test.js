// The GIF/WebM export prints the page's numbers (issue 38): each frame's accuracy and loss come from the page's one
// store of evaluations (the shipped measurement where it applies), not from the live result that drew its maps.
import { clientSource } from '../../web/app/lab/sweep-export.js';
import { createEvaluations } from '../../web/app/lab/evaluations.js';

const live = { length: 64, accuracy: 0.5, loss: 2.5, sequences: 4, scalingKey: '', bitmaps: [{}], status: 'ok' };
const client = { fresh: (enc, L) => (L === 64 ? live : null), results: () => [live], scalingKey: () => '', request() {} };

test('a frame shows the shipped measurement where it applies, with its sequences; the maps stay the live result\'s', async () => {
  const ev = createEvaluations({ client });
  ev.setShipped({ sweep: { rope: [[32, 0.99, 0.1], [64, 0.11, 3.2]] }, sequences: 64, isShipped: () => true });
  const r = await clientSource(client, () => ({ lengths: [64] }), { evaluations: ev })('rope', 64);
  expect(r).toMatchObject({ accuracy: 0.11, loss: 3.2, sequences: 64, measured: true, bitmaps: live.bitmaps });
  expect(r.accuracy).toBe(ev.at('rope', 64).accuracy);
});

test('elsewhere the live result, with the sequences it rests on', async () => {
  const ev = createEvaluations({ client });
  ev.setShipped({ sweep: { rope: [[32, 0.99, 0.1]] }, sequences: 64, isShipped: () => false });
  const r = await clientSource(client, () => ({ lengths: [64] }), { evaluations: ev })('rope', 64);
  expect(r).toMatchObject({ accuracy: 0.5, loss: 2.5, sequences: 4, measured: false });
});
