// The narrative's steps (web/app/story/story.js) and the page's evaluations (web/app/lab/evaluations.js) come from the
// shipped results: every percentage a step states is found again here from results.json (seed 0, the shipped
// checkpoints' seed), each comparison holds on those numbers, and changing a number changes the step.
import { readFileSync } from 'node:fs';
import { storySteps, shippedSweep, shippedScaledRuns } from '../../web/app/story/story.js';
import { createEvaluations } from '../../web/app/lab/evaluations.js';
import { lastAtOrBefore } from '../../web/app/story/hero.js';
import { yardstick } from '../../web/app/lab/row-words.js';
import { taskInfo, floorNear } from '../../web/app/shared/results-words.js';
import { RULES } from '../../web/app/shared/results-words.js';
import { ENCODING_INFO } from '../../web/lib/index.js';

const shipped = JSON.parse(readFileSync(new URL('../../web/checkpoints/results.json', import.meta.url), 'utf8'));
const clone = (x) => JSON.parse(JSON.stringify(x));
const names = Object.fromEntries(ENCODING_INFO.map((e) => [e.name, e.label]));
// the rows with shipped results (a registry row not trained yet has none, and the story leaves it out)
const encs = ENCODING_INFO.map((e) => e.name).filter((n) => shipped.runs.some((x) => x.encoding === n));
// the floor at each length, read here from the results' floors (the best of uniform and bag-of-tokens at L)
const T = shipped.config.trainLength;
const floor = (L) => Math.max(...shipped.tasks.copy.floors.map((f) => (f.byLength ? f.byLength.find((x) => x.length === L)?.accuracy ?? 0 : f.accuracy)));
const floorPct = (L) => `${+(100 * floor(L)).toFixed(1)}%`;
const acc = (r, enc, L, pred = (x) => (x.scaling ?? 'none') === 'none' && !x.variant && !x.finetune) =>
  r.runs.find((x) => x.task === 'copy' && x.seed === 0 && x.encoding === enc && pred(x)).lengths.find((l) => l.length === L).accuracy;
const p = (x) => `${Math.round(100 * x)}%`;
const kept = (r, e, L) => (acc(r, e, L) - floor(L)) / (acc(r, e, T) - floor(T));
const byId = (r) => Object.fromEntries(storySteps(r, 'copy', names, encs).map((s) => [s.id, s]));

test('step 1: every encoding at the training length, lowest and highest accuracy, against the floor', () => {
  const s = byId(shipped).train;
  const accs = encs.map((e) => [e, acc(shipped, e, T)]).sort((a, b) => a[1] - b[1]);
  expect(accs.every(([, a]) => a >= shipped.tasks.copy.target)).toBe(true);
  expect(s.text).toBe(`At T = ${T}, the length they were trained on, all ${encs.length} encodings learned the task (each at or above the 95% target): accuracy from ${p(accs[0][1])} (${names[accs[0][0]]}) ` +
    `to ${p(accs.at(-1)[1])} (${names[accs.at(-1)[0]]}), against ${floorPct(T)} for always guessing the most common token.`);
  expect(floor(T)).toBeGreaterThan(0.2); // the bag guess, not the uniform 12.5%
  expect(s.view.length).toBe(T);
});

test('step 2: the encodings named as collapsed at 2x keep under the limited share; the others are named as still above', () => {
  const s = byId(shipped).collapse;
  for (const e of encs) {
    const k = kept(shipped, e, 2 * T);
    const named = s.text.includes(`${names[e]} ${p(acc(shipped, e, 2 * T))}`);
    expect(named).toBe(true); // every row's 2x accuracy is stated
    const before = s.text.split('Still above')[0].includes(`${names[e]} ${p(acc(shipped, e, 2 * T))}`);
    expect(before).toBe(k < RULES.limited);
  }
  expect(s.text).toMatch(/Learned 16%/);
  expect(s.text).toMatch(/Sinusoidal 18%/);
});

test('step 3: ALiBi and FIRE degrade gently, with their 4x and 8x accuracy and kept share', () => {
  const s = byId(shipped).gentle;
  for (const e of ['alibi', 'fire']) {
    expect(kept(shipped, e, 4 * T)).toBeGreaterThanOrEqual(RULES.moderate);
    for (const L of [4 * T, 8 * T]) expect(s.text).toContain(p(acc(shipped, e, L)));
    expect(s.text).toContain(p(kept(shipped, e, 4 * T)));
  }
  expect(s.text.startsWith('FIRE and ALiBi degrade gently')).toBe(true);
  expect(s.text).toContain(`against ${floorPct(4 * T)} for always guessing the most common token at T = ${4 * T}`);
});

test('step 5: position interpolation without fine-tuning against plain RoPE and the fine-tuned model', () => {
  const s = byId(shipped).stretch;
  const pi = (x) => x.scaling === 'linear' && !x.finetune, ft = (x) => x.scaling === 'linear' && !!x.finetune;
  // (the page's factor is 4 at every length: the step quotes the shipped run only at 4x, where its factor L/32 is 4)
  expect(s.text).toContain(`RoPE scores ${p(acc(shipped, 'rope', 4 * T, pi))} at 4× (T = ${4 * T}), against ${p(acc(shipped, 'rope', 4 * T))} unstretched`);
  expect(s.text).not.toContain(p(acc(shipped, 'rope', 2 * T, pi))); // the shipped x2 at 2x is another scaling than the page's
  expect(s.text).toContain(`it scores ${p(acc(shipped, 'rope', 4 * T, ft))} there, and ${p(acc(shipped, 'rope', T, ft))} back at T = ${T} (${p(acc(shipped, 'rope', T))} before)`);
  expect(s.view).toMatchObject({ ropeScaling: 'linear', factor: 4, length: T });
});

test('mutations: ALiBi below the moderate share leaves the gentle step; a collapsed Learned that recovers leaves the collapse list', () => {
  const m = clone(shipped);
  m.runs.find((x) => x.task === 'copy' && x.seed === 0 && x.encoding === 'alibi' && x.scaling === 'none' && !x.variant).lengths.find((l) => l.length === 4 * T).accuracy = 0.3;
  expect(byId(m).gentle.text.startsWith('FIRE degrades gently')).toBe(true);
  expect(byId(m).gentle.text).not.toContain('ALiBi');
  const m2 = clone(shipped);
  m2.runs.find((x) => x.task === 'copy' && x.seed === 0 && x.encoding === 'learned' && x.scaling === 'none' && !x.variant).lengths.find((l) => l.length === 2 * T).accuracy = 0.9;
  expect(byId(m2).collapse.text.split('Still above')[0]).not.toContain('Learned 90%');
  expect(byId(m2).collapse.text.split('Still above')[1]).toContain('Learned 90%');
});

test('one evaluation per (model, length, scaling): shipped points where they apply, live ones elsewhere, never mixed scalings', () => {
  const sweep = shippedSweep(shipped, 'copy');
  let key = '', results = [];
  const client = { results: (enc) => (enc === 'rope' ? results : []), scalingKey: () => key };
  const ev = createEvaluations({ client });
  let isShipped = true;
  ev.setShipped({ sweep, scaledRuns: shippedScaledRuns(shipped, 'copy'), sequences: shipped.config.evaluation.sequences, isShipped: () => isShipped });
  const info = taskInfo(shipped, 'copy');
  ev.setYardstick(() => yardstick(info, (L) => floorNear(info, L)));
  const live = (length, accuracy, scalingKey = '', sequences = 4) => ({ length, accuracy, loss: 1, sequences, scalingKey });
  results = [live(32, 0.5, '', 64), live(80, 0.4), live(512, 0.2), live(32, 0.25, '{"rope_type":"linear","factor":4}', 64)];
  // unscaled, the shipped model: the measured points, then the live ones at the lengths not measured
  const line = ev.series('rope');
  expect(line.map((x) => x.length)).toEqual([...shipped.config.evalLengths, 80, 512].sort((a, b) => a - b));
  expect(ev.at('rope', 32)).toMatchObject({ accuracy: acc(shipped, 'rope', 32), sequences: 64, measured: true, partial: false });
  expect(ev.at('rope', 80)).toMatchObject({ accuracy: 0.4, sequences: 4, measured: false, partial: true });
  expect(ev.at('rope', 96).accuracy).toBe(acc(shipped, 'rope', 96));
  // position interpolation x4: live points of that scaling only, and the shipped PI run where its factor L/32 is 4 (T = 128)
  key = '{"rope_type":"linear","factor":4}';
  expect(ev.at('rope', 32)).toMatchObject({ accuracy: 0.25, measured: false, partial: false });
  expect(ev.at('rope', 80)).toBeNull(); // the unscaled live point is not used
  expect(ev.at('rope', 128)).toMatchObject({ accuracy: acc(shipped, 'rope', 128, (x) => x.scaling === 'linear' && !x.variant && !x.finetune), measured: true });
  expect(ev.at('rope', 64)).toBeNull(); // the shipped PI run used factor 2 there
  expect(ev.series('rope').map((x) => x.length)).toEqual([32, 128]);
  // the verdict reads the unscaled model at the training length, whatever the view's scaling
  expect(ev.verdict('rope', 'copy', T)).toMatchObject({ learned: true, at: { accuracy: acc(shipped, 'rope', 32), sequences: 64 } });
  expect(ev.verdict('shaw', 'copy', T).learned).toBe(true); // 98% on 64 sequences, at or above the 95% target
  // a retrained model: live points only, and its verdict rests on the live evaluation at the training length
  key = '';
  isShipped = false;
  expect(ev.series('rope').map((x) => x.length)).toEqual([32, 80, 512]);
  expect(ev.verdict('rope', 'copy', T)).toMatchObject({ learned: false, at: { accuracy: 0.5, sequences: 64 } });
  expect(ev.verdict('alibi', 'copy', T).learned).toBeNull(); // not evaluated yet: no verdict
});

test('the legend keeps the last evaluation before the cursor while the cursor\'s computes', () => {
  const pts = [{ length: 32, accuracy: 1 }, { length: 256, accuracy: 0.2 }];
  expect(lastAtOrBefore(pts, 272)).toBe(pts[1]);
  expect(lastAtOrBefore(pts, 100)).toBe(pts[0]);
  expect(lastAtOrBefore(pts, 16)).toBeNull();
});

test('every length a step quotes accuracies at comes with the floor at that same length (steps 3 to 5)', () => {
  const s = byId(shipped);
  const atL = (L) => `${floorPct(L)} for always guessing the most common token at T = ${L}`;
  // step 3: 4x numbers with the 4x floor, 8x numbers with the 8x floor
  const [four, eight] = s.gentle.text.split('; at 8×');
  expect(four).toContain(atL(4 * T));
  expect(eight).toContain(atL(8 * T));
  expect(floor(8 * T)).toBeLessThan(floor(4 * T)); // the bag guess falls with the length: the two differ
  // step 4: the 2x comparison with the 2x floor, the 4x one with the 4x floor
  const [two, by4] = s.random.text.split('; by 4×');
  expect(two).toContain(atL(2 * T));
  expect(by4).toContain(atL(4 * T));
  // step 5: the floor at the length it quotes
  expect(s.stretch.text).toContain(`always guessing the most common token: ${floorPct(4 * T)} at T = ${4 * T}`);
});
