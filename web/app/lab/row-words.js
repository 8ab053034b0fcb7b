// What a sweep row says about its model at the length shown: accuracy (or loss) against the task's floor
// and against its own score at the training length, never attention alone. Pure functions (no DOM), shared
// by the page's rows, the hero figure and the narrative; tests/js/row-words.test.js checks every number in
// these sentences against the numbers they are computed from, with mutations.
import { RULES, levelOf, pct, pct1, guessWords } from '../shared/results-words.js';

/** "4×", "1.75×". */
export const timesText = (L, T) => {
  const x = L / T;
  return `${Number.isInteger(x) ? x : x.toFixed(2)}×`;
};

/**
 * The task's yardsticks for the row words: {metric: 'accuracy'|'loss', target, floor, floorAt(L)} from a
 * results-words taskInfo and its floor: `floor` a floorOf result (the same at every length), or a function of the
 * length giving one (floorNear: the floor at each length, measured there or at `measuredAt`). A result is read
 * against the floor at its own length.
 */
export function yardstick(info, floor) {
  const of = (f) => ({ accuracy: f.accuracy, loss: f.loss, name: info.metric === 'loss' ? f.lossName : f.accuracyName,
    ...(f.measuredAt != null ? { measuredAt: f.measuredAt } : {}) });
  const at = typeof floor === 'function' ? (L) => of(floor(L)) : () => of(floor);
  return { metric: info.metric, target: info.target ?? null, floor: at(null), floorAt: at };
}

const score = (r, metric) => (metric === 'loss' ? r.loss : r.accuracy);
const floorAt = (y, L) => (y.floorAt ? y.floorAt(L) : y.floor);
/** Above-floor skill: accuracy above the floor's, or loss below the floor's, at the result's own length. */
const gain = (r, y) => {
  const f = floorAt(y, r.length);
  return y.metric === 'loss' ? f.loss - r.loss : r.accuracy - f.accuracy;
};
const fmt = (x, metric) => (metric === 'loss' ? `${x.toFixed(2)} nats` : `${pct(x)}%`);
const floorText = (y, L) => {
  const f = floorAt(y, L), where = f.measuredAt != null ? ` (measured at T = ${f.measuredAt})` : '';
  return y.metric === 'loss' ? `${f.loss.toFixed(2)} nats for ${guessWords(f.name)}${where}` : `${pct1(f.accuracy)}% for ${guessWords(f.name)}${where}`;
};

/**
 * Did the model learn the task at the training length? {learned, reason}: below the task's target
 * (accuracy tasks), or no better than the floor. `atTrain`: the result at the training length.
 */
export function learnedAt(atTrain, y, trainLength) {
  if (!atTrain || !y) return { learned: true, reason: '' };
  const s = score(atTrain, y.metric);
  if (y.metric === 'accuracy' && y.target != null && s < y.target)
    return { learned: false, reason: `did not learn the task: accuracy ${pct(s)}% at the training length T = ${trainLength}, below the ${pct(y.target)}% target (${floorText(y, trainLength)})` };
  if (!(gain(atTrain, y) > 0.02 * (y.metric === 'loss' ? y.floor.loss : 1)))
    return { learned: false, reason: `did not learn the task: ${y.metric} ${fmt(s, y.metric)} at the training length T = ${trainLength}, no better than ${floorText(y, trainLength)}` };
  return { learned: true, reason: '' };
}

/** The kept share of above-floor skill at `now` relative to `atTrain` (RULES, results-words.js), or null. */
export const keptShare = (atTrain, now, y) => {
  const g = gain(atTrain, y);
  return g > 1e-9 ? gain(now, y) / g : null;
};

const LEVEL_WORDS = { good: 'it still works', moderate: 'it degrades but keeps over half', limited: 'it has lost most of it', none: 'it has lost it' };

/**
 * The "what to notice" line of a row: `name`'s score at `now` against its score at the training length and the
 * task's floor (`y`, yardstick()). Empty while either result is missing or no floor is known.
 */
export function noticeText(name, atTrain, now, trainLength, y, { scaled = false } = {}) {
  if (!now || !atTrain || !y) return '';
  const m = y.metric, L = now.length;
  const l = learnedAt(atTrain, y, trainLength);
  // a scaled model (RoPE scaling applied at evaluation, no fine-tuning): below the target at the training length,
  // it is the scaling that breaks it (the model itself learned: its unscaled row says so)
  if (!l.learned && scaled) return `What to notice: with this scaling and no fine-tuning, ${name} scores ${m} ${fmt(score(atTrain, m), m)} ` +
    `already at the training length T = ${trainLength}, against ${floorText(y, trainLength)}: the scaling breaks the trained model before any extrapolation.`;
  if (!l.learned) return `What to notice: ${name} ${l.reason}, so its maps show no learned pattern.`;
  if (L === trainLength) return `What to notice: at the training length T = ${L} ${name} scores ${m} ${fmt(score(now, m), m)}, against ${floorText(y, L)}.`;
  const kept = keptShare(atTrain, now, y);
  const worse = gain(now, y) <= 0;
  return `What to notice: at ${timesText(L, trainLength)} the training length (T = ${L}) ${name} scores ${m} ${fmt(score(now, m), m)}, against ` +
    `${fmt(score(atTrain, m), m)} at T = ${trainLength} and ${floorText(y, L)}: ` +
    (worse ? 'it is no better than the guess.' : `it keeps ${pct(kept)}% of its skill above the guess, so ${LEVEL_WORDS[levelOf(kept)]}.`);
}

/** The numbers line beside a row's curve. */
export function measuredText(atTrain, now, trainLength, y) {
  if (!atTrain || !now) return '';
  const m = y?.metric ?? 'accuracy';
  return `Measured: ${m} ${fmt(score(atTrain, m), m)} at the training length ${trainLength}, ${fmt(score(now, m), m)} at ${now.length} (${timesText(now.length, trainLength)}).`;
}

export { RULES };
