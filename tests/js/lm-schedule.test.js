// The streaming figure's schedule, as plain data (web/app/lm/plan.js, schedule.js, core.js's step sizes): the
// order the lines come in, the share of the work a chunk of rows is, the time left in words, the memory sentence and
// its refusal, the buckets of a line still streaming in.
import { planForwards, bucketPerplexity } from '../../web/app/lm/plan.js';
import { rowsCost, timeLeftWords, memoryWords } from '../../web/app/lm/schedule.js';
import { nextRows, FIRST_ROWS, MAX_ROWS } from '../../web/app/lm/core.js';
import { ROPE_SCALINGS } from '../../web/app/shared/state.js';

test('the lines come in the order the reader looks at them: the chosen scaling, then none, then the others', () => {
  for (const type of ROPE_SCALINGS) {
    const order = planForwards({ type, factor: 4, length: 4096, context: 512, layer: 0 }).slice(0, 5).map((j) => j.type);
    expect(order).toEqual([type, ...(type === 'none' ? [] : ['none']), ...ROPE_SCALINGS.filter((t) => t !== type && t !== 'none')]);
  }
});

test('a chunk of rows is its share of the forward\'s cost: the chunks add up to the whole, later rows cost more', () => {
  const [j] = planForwards({ type: 'yarn', factor: 4, length: 4096, context: 512, layer: 0 });
  let sum = 0;
  for (let r = 0; r < 4096; r += 512) sum += rowsCost(j, r, r + 512);
  expect(sum).toBeCloseTo(j.cost, 9);
  expect(rowsCost(j, 3584, 4096)).toBeGreaterThan(rowsCost(j, 0, 512) * 3); // attention grows with the row
});

test('the time left in plain words, from the rate so far', () => {
  expect(timeLeftWords(0, 1000, 5)).toBeNull(); // no chunk yet: no rate
  expect(timeLeftWords(1, 1000, 2)).toBe('a few seconds left');
  expect(timeLeftWords(1, 1000, 7.4)).toBe('about 7 s left');
  expect(timeLeftWords(1, 1000, 41)).toBe('about 40 s left');
  expect(timeLeftWords(1, 2000, 100)).toBe('about 3 min left');
});

test('the memory a run needs, said before it starts; a run that does not fit is refused with the numbers', () => {
  const m = { weights: 269e6, cache: 94.4e6, work: 41e6, total: 404.4e6, kv: 'float16', available: 3.5e9 };
  expect(memoryWords(m, 4096)).toEqual({ fits: true, text: 'A run over 4,096 tokens needs about 404.4 MB at its peak: 269.0 MB of weights, ' +
    '94.4 MB of keys and values (in 16-bit, as the cache is above 64 MB in 32-bit) and 41.0 MB of working memory.' });
  const no = memoryWords({ ...m, cache: 3.2e9, total: 3.51e9, available: 3.0e9 }, 131072);
  expect(no.fits).toBe(false);
  expect(no.text).toBe('A run over 131,072 tokens would need about 3.51 GB at its peak (269.0 MB of weights, 3.20 GB of keys and values ' +
    '(in 16-bit, as the cache is above 64 MB in 32-bit) and 41.0 MB of working memory), but the model\'s memory has 3.00 GB left beside its weights: choose a shorter length.');
  expect(memoryWords({ ...m, kv: 'float32' }, 10).text).toContain('(in 32-bit)');
});

test('a line streaming in is bucketed as the whole line will be, cut where its losses stop', () => {
  const nll = Float32Array.from({ length: 4095 }, (_, i) => (i % 7) / 3);
  const whole = bucketPerplexity(nll, 32);
  const start = bucketPerplexity(nll.subarray(0, 1000), 32, 4095);
  expect(start.length).toBe(8); // 7 whole buckets of 127-128 and the start of the 8th
  expect(start.slice(0, 7)).toEqual(whole.slice(0, 7));
  expect(start[7]).toMatchObject({ from: whole[7].from, to: 1001 });
});

test('a stream\'s steps: few rows first, then sized to take about the aimed time', () => {
  expect(FIRST_ROWS).toBeLessThanOrEqual(8); // a 135M model's first 32 rows took 3.3 s (Chromium) to 13.6 s (WebKit) under load
  expect(nextRows(32, 30)).toBe(320); // fast: ten times the rows
  expect(nextRows(256, 3000)).toBe(32); // slow: fewer, never under 32
  expect(nextRows(512, 1)).toBe(MAX_ROWS);
});
