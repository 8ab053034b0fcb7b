// The RoPE spectrum experiment (docs/experiments/spectrum.json, results.experiments.spectrum; cpp/tools/spectrum_main.cpp)
// read as numbers: the rotary spectrum of a setting, the floors at each length, and per RoPE base the accuracy of each
// zero-shot and fine-tuned row over the seeds that learned. Pure functions, shared by the literature rules
// (web/app/story/literature.js) and the results.md section (scripts/results-md-spectrum.js).
import { RULES } from '../shared/results-words.js';

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A pair has this many full turns within T or more: Llama-like fast pairs (issue 28's table). */
export const FAST_TURNS = 32;

/**
 * The rotary spectrum of head_dim d at `base` over T tokens. Pair i turns at angle rate base^(-2i/d) per token, so its
 * period is 2π base^(2i/d): pairs, pairs that turn within T (period < T), the slowest period over T, and the pairs
 * with FAST_TURNS or more turns within T (period <= T / FAST_TURNS).
 */
export function rotarySpectrum(headDim, base, T) {
  const pairs = headDim / 2;
  const periods = Array.from({ length: pairs }, (_, i) => 2 * Math.PI * base ** ((2 * i) / headDim));
  return {
    headDim, base, T, pairs,
    turning: periods.filter((p) => p < T).length,
    slowest: periods.at(-1) / T,
    fast: periods.filter((p) => T / p >= FAST_TURNS).length,
  };
}

/** The LLM settings issue 28 compares with (facts about the models: head_dim, RoPE base, context; the rest is computed). */
export const LLM_SETTINGS = [
  { name: 'Llama 2', headDim: 128, base: 1e4, T: 4096 },
  { name: 'Llama 3.1', headDim: 128, base: 5e5, T: 131072 },
];

/** The spectrum of one of LLM_SETTINGS, by name, with its name. */
export function llmSpectrum(name) {
  const s = LLM_SETTINGS.find((x) => x.name === name);
  return { name, ...rotarySpectrum(s.headDim, s.base, s.T) };
}

const lengthOf = (row, L) => row?.lengths.find((l) => l.length === L);

/** The best floor at L: the larger accuracy of chance (uniform) and the bag of tokens, with its name. */
export function spectrumFloor(exp, L) {
  const f = exp.floors.find((x) => x.length === L);
  if (!f) return null;
  return f.bag.accuracy > f.uniform.accuracy ? { accuracy: f.bag.accuracy, name: 'bag' } : { accuracy: f.uniform.accuracy, name: 'uniform' };
}

/** The runs (seeds) of one base. */
export const runsOf = (exp, base) => exp.runs.filter((r) => r.base === base);

/**
 * A run's accuracy at L for one row (kind "zeroShot" | "finetuned", scaling). A zero-shot scaling is applied only past
 * trainLength, so at L <= trainLength its accuracy is the plain model's.
 */
export function accuracyOf(exp, run, kind, scaling, L) {
  const row = run.rows.find((x) => x.kind === kind && x.scaling === scaling);
  const at = lengthOf(row, L) ?? (kind === 'zeroShot' && L <= exp.config.trainLength ? lengthOf(run.rows.find((x) => x.kind === 'zeroShot' && x.scaling === 'none'), L) : null);
  return at?.accuracy ?? null;
}

/** The pretrained model's 1x accuracy of a run. */
export const pretrainedOne = (exp, run) => accuracyOf(exp, run, 'zeroShot', 'none', exp.config.trainLength);

/**
 * kept = (accuracy at L - floor at L) / (the pretrained model's 1x accuracy - floor at 1x): the share of its above-floor
 * skill that a row keeps at L.
 */
export function keptOf(exp, run, kind, scaling, L) {
  const T = exp.config.trainLength, a = accuracyOf(exp, run, kind, scaling, L), one = pretrainedOne(exp, run);
  const fL = spectrumFloor(exp, L), f1 = spectrumFloor(exp, T);
  if (a == null || one == null || !fL || !f1) return null;
  return (a - fL.accuracy) / (one - f1.accuracy);
}

/**
 * One row at L over the learned seeds of a base: {mean, values [{seed, accuracy}], kept (mean), disagree (their span is
 * more than RULES.disagree), seeds (learned), of (all)}; mean null when no seed learned.
 */
export function cellOf(exp, base, kind, scaling, L) {
  const all = runsOf(exp, base), learned = all.filter((r) => r.learned);
  const values = learned.map((r) => ({ seed: r.seed, accuracy: accuracyOf(exp, r, kind, scaling, L) })).filter((v) => v.accuracy != null);
  const kept = learned.map((r) => keptOf(exp, r, kind, scaling, L)).filter((k) => k != null);
  const accs = values.map((v) => v.accuracy);
  return {
    mean: accs.length ? mean(accs) : null, kept: kept.length ? mean(kept) : null, values,
    disagree: accs.length > 1 && Math.max(...accs) - Math.min(...accs) > RULES.disagree, seeds: learned.length, of: all.length,
  };
}

/** A cell above the floor at L by more than RULES.floorMargin (its mean over the learned seeds). */
export function aboveFloor(exp, cell, L) {
  const f = spectrumFloor(exp, L);
  return cell.mean != null && f != null && cell.mean - f.accuracy > RULES.floorMargin;
}

/** The setting of the experiment's bases: its spectrum at each base. */
export const spectraOf = (exp) => exp.config.bases.map((b) => rotarySpectrum(exp.config.model.headDim, b, exp.config.trainLength));

/** The spectrum at the middle base of the sweep (the setting chosen to meet issue 28's three conditions). */
export const middleSpectrum = (exp) => spectraOf(exp)[Math.floor(exp.config.bases.length / 2)];

/** "500, 1500 and 10000". */
export const andList = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);
