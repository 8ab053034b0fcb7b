// web/app/lab/arrivals.js: what arrives in the background (the sweep's results at other lengths, training
// progress) is drawn at most once per 100 ms slot of the frame clock; what is on screen (and anything that is
// not a result) is for the next frame.
import { jest } from '@jest/globals';
import { createArrivals, createWake } from '../../web/app/lab/arrivals.js';

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

describe('createWake: one pending wake-up per frame loop', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('keeps the sooner of two wake-ups, and asks at once within a frame', () => {
    const calls = [];
    const wake = createWake(() => calls.push(Date.now()));
    const t0 = Date.now();
    wake.in(300, t0); // the playhead's next length
    wake.in(500, t0); // later than one already set: no change
    wake.in(350, t0 + 10);
    jest.advanceTimersByTime(299);
    expect(calls).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(calls.length).toBe(1);
    expect(calls[0] - t0).toBe(300);
    wake.in(80, t0 + 290);
    wake.in(40, t0 + 300); // sooner: replaces it
    jest.advanceTimersByTime(200);
    expect(calls.length).toBe(2);
    expect(calls[1] - t0).toBe(300 + 40);
    wake.in(10);
    expect(calls.length).toBe(3); // within a frame: at once, no timer
    wake.in(Infinity);
    jest.advanceTimersByTime(10000);
    expect(calls.length).toBe(3);
  });

  test('cancel forgets the wake-up, and the next one is set afresh', () => {
    let n = 0;
    const wake = createWake(() => n++);
    const t0 = Date.now();
    wake.in(100, t0);
    wake.cancel();
    jest.advanceTimersByTime(1000);
    expect(n).toBe(0);
    wake.in(400, Date.now()); // not kept back by the cancelled one
    jest.advanceTimersByTime(400);
    expect(n).toBe(1);
  });
});
