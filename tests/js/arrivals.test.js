// web/app/arrivals.js: what arrives in the background (the sweep's results at other lengths, training
// progress) is drawn at most once per 100 ms slot of the frame clock; what is on screen (and anything that is
// not a result) is for the next frame.
import { createArrivals } from '../../web/app/arrivals.js';

test('results at other lengths wait for the next slot; the length on screen and other updates do not', () => {
  const a = createArrivals(100);
  expect(a.pending()).toBe(false);
  expect(a.due(0)).toBe(false);
  expect(a.urgent('result', 64, 64)).toBe(true); // the length on screen
  expect(a.urgent('ready', undefined, 64)).toBe(true);
  expect(a.urgent(undefined, undefined, 64)).toBe(true); // a model arrived
  expect(a.pending()).toBe(false);
  expect(a.urgent('result', 128, 64)).toBe(false);
  expect(a.pending()).toBe(true);
  expect(a.due(10)).toBe(true); // nothing drawn yet: at once
  a.drawn(10);
  expect(a.pending()).toBe(false);
  a.urgent('result', 256, 64);
  expect(a.due(50)).toBe(false); // the slot [0, 100) has drawn
  expect(a.due(99)).toBe(false);
  expect(a.due(100)).toBe(true);
  a.drawn(160); // a frame that drew for another reason drew these too
  expect(a.pending()).toBe(false);
  a.wait();
  expect(a.due(199)).toBe(false);
  expect(a.due(200)).toBe(true);
});

test('gates share the slots, so they draw in the same frames', () => {
  const sweep = createArrivals(), panel = createArrivals();
  sweep.drawn(1030);
  panel.drawn(1012);
  sweep.wait();
  panel.wait();
  const frames = [1046, 1063, 1080, 1096, 1113, 1130];
  expect(frames.map((t) => sweep.due(t))).toEqual(frames.map((t) => panel.due(t)));
  expect(frames.find((t) => sweep.due(t))).toBe(1113);
});

test('msToDue says how long what waits has to wait', () => {
  const a = createArrivals(100);
  expect(a.msToDue(5)).toBe(Infinity); // nothing waits
  a.wait();
  expect(a.msToDue(5)).toBe(0);
  a.drawn(130);
  a.wait();
  expect(a.msToDue(140)).toBe(60);
  expect(a.msToDue(200)).toBe(0);
});
