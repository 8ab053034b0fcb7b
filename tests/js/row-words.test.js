// The sweep rows' words (web/app/lab/row-words.js) compare accuracy (or loss) against the task's floor and the
// row's own score at the training length, and never contradict the numbers beside them (issue 29). Each
// sentence is parsed back here and checked against the numbers it was computed from; mutations of one number
// change the sentence (or its verdict) as they must.
import { noticeText, measuredText, learnedAt, keptShare, yardstick } from '../../web/app/lab/row-words.js';
import { taskInfo, floorOf, floorNear, RULES, pct1, guessWords } from '../../web/app/shared/results-words.js';
import { readFileSync } from 'node:fs';

const shipped = JSON.parse(readFileSync(new URL('../../web/checkpoints/results.json', import.meta.url), 'utf8'));
const yOf = (task) => { const info = taskInfo(shipped, task); return yardstick(info, (L) => floorNear(info, L)); };
const copy = yOf('copy');
const at = (length, accuracy, loss = 1) => ({ length, accuracy, loss });
const pct = (x) => Math.round(100 * x);
const numbers = (s) => [...s.matchAll(/(\d+(?:\.\d+)?)%/g)].map((m) => Number(m[1]));

// The bag-of-tokens floor copy's results.json measured at each evaluation length (the best floor there).
const bag = Object.fromEntries(taskInfo(shipped, 'copy').floors.find((f) => f.name === 'bag').byLength.map((x) => [x.length, x.accuracy]));

test('the copy yardstick: its target, and at each length the floor measured there (or at the nearest measured length below)', () => {
  expect([copy.metric, copy.target, copy.floor]).toEqual(['accuracy', 0.95, { accuracy: 0.125, loss: expect.any(Number), name: 'uniform' }]);
  expect(copy.floorAt(32)).toEqual({ accuracy: bag[32], loss: expect.any(Number), name: 'bag' });
  expect(copy.floorAt(128).accuracy).toBe(bag[128]);
  expect(copy.floorAt(56)).toEqual({ accuracy: bag[48], loss: expect.any(Number), name: 'bag', measuredAt: 48 });
  expect(copy.floorAt(512)).toMatchObject({ accuracy: bag[256], measuredAt: 256 });
  expect(bag[32]).toBeGreaterThan(bag[256] + 0.05); // (it falls with the length: 27% to 17%)
});

// The shipped copy sweep at 4x (seed 0): ALiBi keeps 0.67 of 0.99 (the "loses focus" case), RoPE falls to the floor.
const cases = [
  ['ALiBi', at(32, 0.99), at(128, 0.67)],
  ['RoPE', at(32, 0.99), at(56, 0.13)],
  ['FIRE', at(32, 0.98), at(64, 0.92)],
  ['T5 buckets', at(32, 0.98), at(96, 0.27)],
];

test.each(cases)('%s: the notice states the accuracy shown, the training-length accuracy and the floor, and its verdict follows the kept share', (name, a1, now) => {
  const s = noticeText(name, a1, now, 32, copy);
  const [n, t, f, kept] = numbers(s);
  const fL = copy.floorAt(now.length);
  expect([n, t, f]).toEqual([pct(now.accuracy), pct(a1.accuracy), Number((100 * fL.accuracy).toFixed(1))]);
  if (fL.measuredAt) expect(s).toContain(`for always guessing the most common token (measured at T = ${fL.measuredAt})`);
  else expect(s).toContain('for always guessing the most common token:');
  expect(measuredText(a1, now, 32, copy)).toContain(`${pct(a1.accuracy)}% at the training length 32, ${pct(now.accuracy)}% at ${now.length}`);
  const k = keptShare(a1, now, copy);
  expect(k).toBeCloseTo((now.accuracy - fL.accuracy) / (a1.accuracy - bag[32]), 12); // each score above the floor at its length
  if (now.accuracy <= fL.accuracy) expect(s).toMatch(/no better than the guess\.$/);
  else {
    expect(kept).toBe(pct(k));
    const level = k >= RULES.good ? 'still works' : k >= RULES.moderate ? 'keeps over half' : k >= RULES.limited ? 'lost most' : 'has lost it';
    expect(s).toContain(level);
  }
  // never a claim about focus or attention alone
  expect(s).not.toMatch(/focus|sharp|attention/);
});

test('mutations: raising the accuracy shown raises the numbers and the verdict; dropping it to the floor says so', () => {
  const a1 = at(32, 0.99);
  const low = noticeText('ALiBi', a1, at(128, 0.45), 32, copy), high = noticeText('ALiBi', a1, at(128, 0.95), 32, copy);
  expect(low).not.toBe(high);
  expect(low).toContain('lost most');
  expect(high).toContain('still works');
  expect(noticeText('ALiBi', a1, at(128, 0.12), 32, copy)).toMatch(/no better than the guess/);
  expect(noticeText('ALiBi', a1, at(128, bag[128] - 0.01), 32, copy)).toMatch(/no better than the guess/); // above uniform, below the bag
  // a different floor changes the sentence
  const info = taskInfo(shipped, 'copy');
  const other = yardstick(info, { ...floorOf(info), accuracy: 0.5 });
  expect(noticeText('ALiBi', a1, at(128, 0.67), 32, other)).toContain('50% for a random guess');
  expect(noticeText('ALiBi', a1, at(128, 0.67), 32, other)).not.toBe(noticeText('ALiBi', a1, at(128, 0.67), 32, copy));
});

test('a model below the target at the training length did not learn: greyed reason, no verdict about length', () => {
  const l = learnedAt(at(32, 0.41), copy, 32);
  expect(l.learned).toBe(false);
  expect(l.reason).toBe(`did not learn the task: accuracy 41% at the training length T = 32, below the 95% target (${pct1(bag[32])}% for always guessing the most common token)`);
  expect(noticeText('NoPE', at(32, 0.41), at(128, 0.2), 32, copy)).toMatch(/^What to notice: NoPE did not learn the task/);
  expect(learnedAt(at(32, 0.96), copy, 32).learned).toBe(true);
});

test('a scaled model below the target at the training length: the scaling breaks it, not "did not learn"', () => {
  const s = noticeText('RoPE', at(32, 0.25), at(128, 0.2), 32, copy, { scaled: true });
  expect(s).toBe('What to notice: with this scaling and no fine-tuning, RoPE scores accuracy 25% already at the training length T = 32, ' +
    `against ${pct1(bag[32])}% for always guessing the most common token: the scaling breaks the trained model before any extrapolation.`);
  expect(noticeText('RoPE', at(32, 0.99), at(128, 0.5), 32, copy, { scaled: true })).toContain('keeps');
});

test('a loss task (markov) is read as loss against its floor', () => {
  const y = yOf('markov');
  expect(y.metric).toBe('loss');
  const s = noticeText('ALiBi', at(32, 0.4, 1.0), at(128, 0.3, 1.5), 32, y);
  expect(s).toContain('scores loss 1.50 nats, against 1.00 nats at T = 32');
  expect(s).toContain(`${y.floor.loss.toFixed(2)} nats for ${guessWords(y.floor.name)}`);
});

test('at the training length the notice states the score and the floor only', () => {
  expect(noticeText('RoPE', at(32, 0.99), at(32, 0.99), 32, copy)).toBe(`What to notice: at the training length T = 32 RoPE scores accuracy 99%, against ${pct1(bag[32])}% for always guessing the most common token.`);
  expect(noticeText('RoPE', at(32, 0.99), at(32, 0.99), 32, null)).toBe('');
});

// Issue 38: every sentence a row makes is plain words (tests/js/plain-words.js), whatever the score: above the guess,
// below it, not learned, scaled, on an accuracy task and on a loss task.
import { jargonIn } from './plain-words.js';

test('plain words: no row sentence uses jargon, at any score', () => {
  const a1 = at(32, 0.99), y = yOf('markov');
  const sentences = [
    ...cases.flatMap(([name, t, now]) => [noticeText(name, t, now, 32, copy), measuredText(t, now, 32, copy)]),
    noticeText('ALiBi', a1, at(128, bag[128] - 0.05), 32, copy), // below the guess
    noticeText('ALiBi', a1, at(512, 0.5), 32, copy), // a length measured at 256
    noticeText('RoPE', at(32, 0.25), at(128, 0.2), 32, copy, { scaled: true }),
    learnedAt(at(32, 0.41), copy, 32).reason, learnedAt(at(32, 0.2), copy, 32).reason,
    noticeText('ALiBi', at(32, 0.4, 1.0), at(128, 0.3, 1.5), 32, y), noticeText('ALiBi', at(32, 0.4, 1.0), at(128, 0.3, 2.5), 32, y),
    learnedAt(at(32, 0.3, 2.05), y, 32).reason,
  ];
  expect(sentences.every((s) => s.length > 20)).toBe(true);
  expect(sentences.map((s) => [s, jargonIn(s)]).filter(([, j]) => j.length)).toEqual([]);
});
