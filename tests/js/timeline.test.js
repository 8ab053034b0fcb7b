// web/app/lab/timeline.js msToNextChange: how long the page may sleep before the playhead changes the length.
import { createTimeline } from '../../web/app/lab/timeline.js';

test('the wait until the next length matches what tick() does', () => {
  const state = { trainLength: 32, sweepFactor: 16, length: 16, play: true, speed: 1 }; // 32 lengths of 16 up to 512, 8 s a sweep
  const tl = createTimeline(state);
  expect(tl.msToNextChange(0)).toBeCloseTo(250, 6); // 16 more tokens at 64 a second
  tl.tick(1000); // the first tick only starts the clock
  expect(tl.tick(1200)).toBe(false);
  expect(state.length).toBe(16);
  expect(tl.msToNextChange(1200)).toBeCloseTo(50, 6);
  expect(tl.tick(1250)).toBe(true); // a frame that far apart still moves the playhead by all of it
  expect(state.length).toBe(32);
  state.speed = 2;
  expect(tl.msToNextChange(1250)).toBeCloseTo(125, 6);
  state.play = false;
  expect(tl.msToNextChange(1250)).toBe(Infinity);
});

test('at the end it holds, then starts over', () => {
  const state = { trainLength: 32, sweepFactor: 2, length: 64, play: true, speed: 1 };
  const tl = createTimeline(state);
  tl.tick(0); // at the end already: holds 1.5 s
  expect(tl.msToNextChange(10)).toBeCloseTo(1490, 6);
  expect(tl.tick(1499)).toBe(false);
  expect(tl.tick(1501)).toBe(true);
  expect(state.length).toBe(tl.grid()[0]);
});
