// The narrative under the hero figure: short steps a reader clicks through, each setting the view (rows
// picked, length, layer, RoPE scaling) and saying what the shipped models measured there, with accuracy
// compared against the task's floor (results.json, the shipped checkpoints' seed). Every number in a step
// is computed here from the results (tests/js/story.test.js checks each against them, with mutations);
// a claim the numbers do not support is not made (a step whose evidence is missing is left out).
import { taskInfo, floorOf, floorNear, rowsOf, RULES, levelOf, pct, pct1, guessWords } from '../shared/results-words.js';
import { learnedAt, yardstick } from '../lab/row-words.js';

const SHIPPED_SEED = 0; // the seed of the shipped checkpoints (docs/results.json runs with a checkpoint)

/** {encoding: [[length, accuracy], …]} of the shipped models on `task` (scaling none, no variant, seed 0). */
export function shippedSweep(results, task, seed = SHIPPED_SEED) {
  const out = {};
  for (const r of results?.runs ?? []) {
    if (r.task !== task || r.seed !== seed || (r.scaling ?? 'none') !== 'none' || r.variant || r.finetune) continue;
    out[r.encoding] = r.lengths.map((l) => [l.length, l.accuracy, l.loss]);
  }
  return out;
}

/**
 * The shipped models' scaled runs on `task` whose scaling the page's view can apply: position interpolation with
 * the factor L / trainLength past the training length (results.json config.ropeScalings.linear), as
 * [{encoding, scalingAt(L): the scaling object at L (scalingObject's form) or null, points: [[length, accuracy, loss]]}].
 */
export function shippedScaledRuns(results, task, seed = SHIPPED_SEED) {
  const T = results?.config?.trainLength, lin = results?.config?.ropeScalings;
  if (!T || lin?.linear?.factor !== 'L/trainLength' || lin.appliedWhen !== 'L > trainLength') return [];
  const scalingAt = (L) => (L > T ? { rope_type: 'linear', factor: L / T } : null);
  return results.runs.filter((r) => r.task === task && r.seed === seed && r.scaling === 'linear' && !r.variant && !r.finetune)
    .map((r) => ({ encoding: r.encoding, scalingAt, points: r.lengths.map((l) => [l.length, l.accuracy, l.loss]) }));
}

const run = (results, task, pred) => results.runs.find((r) => r.task === task && r.seed === SHIPPED_SEED && pred(r));
const accAt = (r, L) => r?.lengths.find((l) => l.length === L)?.accuracy ?? null;
const list = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/**
 * The steps for `task` (accuracy tasks): [{id, title, text, view: {length, picks, ropeScaling?, factor?}}].
 * `names`: encoding -> reader name. `encodings`: the rows the page shows (registry order).
 */
export function storySteps(results, task, names, encodings) {
  const info = taskInfo(results, task);
  if (info.metric !== 'accuracy') return [];
  // The floor at each length (the best of chance and the task's floors there: for copy and reverse the bag-of-tokens
  // guess, which falls with the length), as every verdict of results.md uses it.
  const T = results.config.trainLength, fl = (L) => floorOf(info, L);
  const guess = (L) => `${pct1(fl(L).accuracy)}% for ${guessWords(fl(L).accuracyName)}${L === T ? '' : ` at T = ${L}`}`;
  const sweep = shippedSweep(results, task);
  const encs = encodings.filter((e) => sweep[e]);
  if (!encs.length) return [];
  const at = (e, L) => sweep[e].find(([l]) => l === L)?.[1] ?? null;
  // the page's one "learned" verdict (row-words.js learnedAt, as evaluations.js gives it to the lab and the training panel)
  const y = yardstick(info, (L) => floorNear(info, L));
  const learned = (e) => {
    const p = sweep[e].find(([l]) => l === T);
    return !!p && learnedAt({ length: T, accuracy: p[1], loss: p[2] }, y, T).learned;
  };
  const kept = (e, L) => (at(e, L) - fl(L).accuracy) / (at(e, T) - fl(T).accuracy);
  const name = (e) => names[e] ?? e;
  const steps = [];

  const contrast = contrastPicks(sweep, T, encs);
  // 1. at the training length, every model does the task
  const ones = encs.map((e) => [e, at(e, T)]).filter(([, a]) => a != null).sort((a, b) => a[1] - b[1]);
  const target = info.target ?? 0;
  const all = ones.every(([e]) => learned(e));
  steps.push({ id: 'train', title: `At the training length`,
    text: `At T = ${T}, the length they were trained on, ${all ? `all ${ones.length} encodings learned the task (each at or above the ${pct(target)}% target)` : `${ones.filter(([e]) => learned(e)).length} of ${ones.length} encodings learned the task (at or above the ${pct(target)}% target)`}: ` +
      `accuracy from ${pct(ones[0][1])}% (${name(ones[0][0])}) to ${pct(ones.at(-1)[1])}% (${name(ones.at(-1)[0])}), against ${guess(T)}.`,
    view: { length: T, picks: contrast } });

  // 2. at 2x, who falls to the guess (keeps less than RULES.limited of the skill above it)
  const L2 = 2 * T;
  const fallen = encs.filter((e) => at(e, L2) != null && kept(e, L2) < RULES.limited);
  if (fallen.length) {
    const keptNames = encs.filter((e) => at(e, L2) != null && !fallen.includes(e)).sort((a, b) => at(b, L2) - at(a, L2));
    steps.push({ id: 'collapse', title: 'At twice the length',
      text: `At 2× (T = ${L2}), ${fallen.length} of ${encs.length} fall to near the guess, keeping under ${pct(RULES.limited)}% of their skill above it: ` +
        `${list(fallen.map((e) => `${name(e)} ${pct(at(e, L2))}%`))} (${guess(L2)}).` +
        (keptNames.length ? ` Still above: ${list(keptNames.map((e) => `${name(e)} ${pct(at(e, L2))}%`))}.` : ''),
      view: { length: L2, picks: pickFour(encs, [...[...fallen].sort((a, b) => at(a, L2) - at(b, L2)).slice(0, 2), ...keptNames]) } });
  }

  // 3. gentle degradation: the rows that keep at least RULES.moderate at 4x
  const L4 = 4 * T, L8 = 8 * T;
  const gentle = encs.filter((e) => at(e, L4) != null && kept(e, L4) >= RULES.moderate).sort((a, b) => at(b, L4) - at(a, L4));
  if (gentle.length) {
    const has8 = gentle.every((e) => at(e, L8) != null);
    steps.push({ id: 'gentle', title: 'Degrading gently',
      text: `${list(gentle.map(name))} degrade${gentle.length > 1 ? '' : 's'} gently: at 4× (T = ${L4}) ${list(gentle.map((e) => `${pct(at(e, L4))}%`))}, against ${guess(L4)}` +
        `${has8 ? `; at 8× (T = ${L8}) ${list(gentle.map((e) => `${pct(at(e, L8))}%`))}, against ${guess(L8)}` : ''}` +
        ` (kept ${list(gentle.map((e) => `${pct(kept(e, L4))}%`))} of the skill above it at 4×, “${list([...new Set(gentle.map((e) => levelOf(kept(e, L4))))])}”).`,
      view: { length: L4, picks: pickFour(encs, gentle) } });
  }

  // 4. random positions against their base, at 2x
  const pairs = encs.filter((e) => e.endsWith('_random') && encs.includes(e.replace(/_random$/, '')))
    .map((e) => [e, e.replace(/_random$/, '')]).filter(([r, b]) => at(r, L2) != null && at(b, L2) != null);
  // (only a model that learned the task is presented as a success)
  const helped = pairs.filter(([r, b]) => learned(r) && at(r, L2) > at(b, L2) + RULES.paperMargin);
  if (helped.length) {
    steps.push({ id: 'random', title: 'Training on random positions',
      text: `Trained with positions drawn at random from a longer range, ${list(helped.map(([r, b]) => `${name(b)} keeps ${pct(at(r, L2))}% at 2× instead of ${pct(at(b, L2))}%`))}` +
        ` (${guess(L2)})${helped.every(([r]) => at(r, L4) != null) ? `; by 4× ${helped.length > 1 ? 'they are' : 'it is'} down to ${list(helped.map(([r]) => `${pct(at(r, L4))}%`))} (${guess(L4)})` : ''}.`,
      view: { length: L2, picks: pickFour(encs, helped.flat()) } });
  }

  // 5. RoPE stretched without fine-tuning (position interpolation at evaluation), against plain RoPE and the fine-tuned model
  const plain = run(results, task, (r) => r.encoding === 'rope' && (r.scaling ?? 'none') === 'none' && !r.variant && !r.finetune);
  const pi = run(results, task, (r) => r.encoding === 'rope' && r.scaling === 'linear' && !r.variant && !r.finetune);
  const tuned = run(results, task, (r) => r.encoding === 'rope' && r.scaling === 'linear' && r.finetune);
  // The page applies one fixed factor K to the RoPE row at every length (the fine-tuned model's, else 4), so the step
  // quotes the shipped interpolation run only where its factor L/T is K (at K×): the one number the page shows there
  // for RoPE under that scaling (evaluations.js). At other lengths the shipped run used another factor (×2 at 2×),
  // a different scaling, so the step does not quote it; the page computes ×K there live.
  const F = tuned?.finetune?.length, K = F ? F / T : 4, LK = K * T;
  if (plain && pi && accAt(pi, LK) != null && accAt(plain, LK) != null) {
    let text = `Stretching RoPE by position interpolation ×${K}, with no fine-tuning (positions divided by ${K}), RoPE scores ${pct(accAt(pi, LK))}% at ${K}× (T = ${LK}), ` +
      `against ${pct(accAt(plain, LK))}% unstretched (${guessWords(fl(LK).accuracyName)}: ${pct1(fl(LK).accuracy)}% at T = ${LK})`;
    if (tuned && accAt(tuned, F) != null && accAt(tuned, T) != null) {
      text += `; fine-tuned for ${tuned.finetune.steps} steps at T = ${F} with the factor ${K} fixed, it scores ${pct(accAt(tuned, F))}% there, ` +
        `and ${pct(accAt(tuned, T))}% back at T = ${T} (${pct(accAt(plain, T))}% before)`;
    }
    steps.push({ id: 'stretch', title: 'Stretching RoPE', text: `${text}. The view applies the same ×${K} to the RoPE row at every length, ` +
      `computed here where it was not measured: compare its accuracy at T = ${T}, where ×${K} squeezes the positions it was trained on.`,
      view: { length: T, picks: pickFour(encs, ['rope', ...contrast]), ropeScaling: 'linear', factor: K } });
  }
  return steps;
}

/**
 * The first screen's default picks, from the data: the two rows that keep the most accuracy at 4x and the two
 * that fall lowest at 2x (the contrast the figure is about), in row order.
 */
export function contrastPicks(sweep, T, encs) {
  const at = (e, L) => sweep[e]?.find(([l]) => l === L)?.[1];
  const rows = encs.filter((e) => at(e, 2 * T) != null && at(e, 4 * T) != null);
  const best = [...rows].sort((a, b) => at(b, 4 * T) - at(a, 4 * T)).slice(0, 2);
  const worst = rows.filter((e) => !best.includes(e)).sort((a, b) => at(a, 2 * T) - at(b, 2 * T)).slice(0, 2);
  return encs.filter((e) => best.includes(e) || worst.includes(e));
}

// Up to four picks: the preferred ones that are rows, then the others in order.
function pickFour(encs, preferred) {
  return [...new Set([...preferred.filter((e) => encs.includes(e))])].slice(0, 4);
}
