// The page-wide queue of training Workers (web/app/shared/workers.js): at most trainingConcurrency() run at
// once (navigator.hardwareConcurrency unless configured), granted first come first served, a release
// counts once, and a withdrawn request is never granted.
import { configureWorkers, requestTrainingSlot, trainingConcurrency } from '../../web/app/shared/workers.js';

afterEach(() => configureWorkers({ training: null }));

test('the default is one training Worker per core (navigator.hardwareConcurrency; 2 where there is none)', () => {
  expect(trainingConcurrency()).toBe(Math.max(1, globalThis.navigator?.hardwareConcurrency || 2));
});

test('at most N at once, in order; release once frees one slot; cancel withdraws', () => {
  configureWorkers({ training: 2 });
  const started = [];
  const releases = {};
  const ask = (name) => requestTrainingSlot((release) => {
    started.push(name);
    releases[name] = release;
  });
  ask('a');
  ask('b');
  ask('c');
  const cancelD = ask('d');
  ask('e');
  expect(started).toEqual(['a', 'b']);
  releases.a();
  releases.a(); // a second release of the same slot changes nothing
  expect(started).toEqual(['a', 'b', 'c']);
  cancelD();
  releases.b();
  expect(started).toEqual(['a', 'b', 'c', 'e']);
  releases.c();
  releases.e();
  // raising the limit grants waiting requests at once
  configureWorkers({ training: 1 });
  ask('f');
  ask('g');
  expect(started).toEqual(['a', 'b', 'c', 'e', 'f']);
  configureWorkers({ training: 2 });
  expect(started).toEqual(['a', 'b', 'c', 'e', 'f', 'g']);
  releases.f();
  releases.g();
});

test('a bad limit is a RangeError naming it', () => {
  expect(() => configureWorkers({ training: 0 })).toThrow(/training must be null or an integer in \[1, 256\]/);
  expect(() => configureWorkers({ training: 1.5 })).toThrow(RangeError);
  expect(trainingConcurrency()).toBe(Math.max(1, globalThis.navigator?.hardwareConcurrency || 2));
});
