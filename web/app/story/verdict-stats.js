// How the literature rules combine seeds, and the 95% intervals they report: a verdict is computed under each
// statistic the frozen rules file names (docs/rules/*.json `statistics`), and one that differs between them sits
// near the line. Pure functions: no DOM, no fetch.
import { t95 } from '../shared/results-words.js';

export const STATS = ['max', 'mean', 'clipped'];
export const STAT_WORDS = { max: 'the best seed', mean: 'the mean over seeds', clipped: 'the floor-clipped mean' };

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const variance = (xs) => (xs.length < 2 ? 0 : xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1));

/**
 * Per-seed values under a statistic: max = the best (highest, or lowest with `lower`), mean, clipped = the mean after
 * raising each value to `floor` (lowering, with `lower`). null without values.
 */
export function combine(values, stat, floor = null, { lower = false } = {}) {
  const xs = values.filter((x) => x != null && Number.isFinite(x));
  if (!xs.length) return null;
  if (stat === 'max') return lower ? Math.min(...xs) : Math.max(...xs);
  if (stat === 'clipped' && floor != null) return mean(xs.map((x) => (lower ? Math.min(x, floor) : Math.max(x, floor))));
  return mean(xs);
}

/** 95% t interval of the mean of `xs`: {low, high, n}, or null under 2 values (or beyond the t table). */
export function meanInterval(xs) {
  const v = xs.filter((x) => x != null && Number.isFinite(x)), t = t95(v.length - 1);
  if (v.length < 2 || t == null) return null;
  const h = t * Math.sqrt(variance(v) / v.length), m = mean(v);
  return { low: m - h, high: m + h, n: v.length };
}

/**
 * 95% interval of the difference of means of independent groups, summed: Σ (mean(a_i) - mean(b_i)) / k with the
 * standard errors added in quadrature and the smallest group's size minus one degrees of freedom (conservative).
 * pairs: [[a values, b values], ...]. null when a group has under 2 values.
 */
export function diffInterval(pairs) {
  const clean = pairs.map(([a, b]) => [a.filter(Number.isFinite), b.filter(Number.isFinite)]);
  const n = Math.min(...clean.flat().map((g) => g.length)), t = t95(n - 1);
  if (!clean.length || n < 2 || t == null) return null;
  const k = clean.length, d = clean.reduce((s, [a, b]) => s + mean(a) - mean(b), 0) / k;
  const se = Math.sqrt(clean.reduce((s, [a, b]) => s + variance(a) / a.length + variance(b) / b.length, 0)) / k;
  return { low: d - t * se, high: d + t * se, n };
}

/** A value by dotted path ("config.seeds.length"). */
const at = (o, path) => path.split('.').reduce((x, k) => (x == null ? undefined : x[k]), o);

/**
 * How the runs differ from the setting a rule was frozen with: ["config.seeds.length 5 (frozen: 3)", ...]. `source`: the
 * object the setting names (results for "main", else results.experiments[name]); a missing experiment differs in all.
 */
export function settingDifferences(results, setting) {
  if (!setting) return [];
  const src = setting.experiment === 'main' ? results : results.experiments?.[setting.experiment];
  if (!src) return [];
  return Object.entries(setting.expect ?? {}).filter(([k, v]) => at(src, k) !== v).map(([k, v]) => `${k} ${JSON.stringify(at(src, k))} (frozen: ${JSON.stringify(v)})`);
}
