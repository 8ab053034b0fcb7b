// One source of truth for every figure of a model at a length: the page's hero (its lines, legend and the
// numbers beside its maps), the lab's rows (curve, large number, words, grey-out), the story's steps and the
// training panel all read the evaluation of an (encoding, length, RoPE scaling) from here, and the one
// "learned" verdict (row-words.js learnedAt, on the evaluation at the training length).
//
// An evaluation is the shipped measurement (results.json: the shipped checkpoint, on `sequences` sequences a
// length) when the row's model is the shipped checkpoint and that length was measured with the scaling the view
// applies there (none; or a shipped scaled run whose scaling at that length is the view's, e.g. position
// interpolation ×4 at 4× the training length); else the live sweep's result at that length for the view's scaling, which says
// how many sequences it rests on (sweep-core.js evalBatch). The view's scaling is the one the sweep client last
// asked for; a live result of another scaling, or of a model replaced since, is never used: a line never mixes
// scaled and unscaled points, nor two models.
import { learnedAt } from './row-words.js';
import { EXPERIMENT } from '../shared/experiment.js';

/**
 * `client`: the sweep client (results(enc), scalingKey(enc)), or later setClient(). setShipped() once results.json
 * is read; setYardstick() for the verdict.
 */
export function createEvaluations({ client = null } = {}) {
  let sweep = {}, scaled = [], sequences = EXPERIMENT.evalSequences, fromCheckpoint = () => false, yardstickFor = () => null;
  let version = 0; // bumped whenever what the store would answer may change (a cheap key for the views)

  // the scaling the view applies to `enc`: the one the sweep client last asked for ('' for none)
  const scalingOf = (enc) => client?.scalingKey?.(enc) ?? '';
  // the shipped points of `enc` that apply under the scaling key K (the view's unless given): the shipped model, with
  // that scaling at each length
  const measuredApplies = (enc, K = scalingOf(enc)) => fromCheckpoint(enc) && (K ? scaled.some((r) => r.encoding === enc) : !!sweep[enc]?.length);
  const measured = (enc, K = scalingOf(enc)) => {
    if (!measuredApplies(enc, K)) return [];
    if (!K) return sweep[enc];
    const out = new Map();
    for (const r of scaled) {
      if (r.encoding !== enc) continue;
      for (const p of r.points) if (JSON.stringify(r.scalingAt(p[0]) ?? null) === K) out.set(p[0], p);
    }
    return [...out.values()];
  };
  // the live results of the current model with the view's scaling (a result of the model before, e.g. an untrained one
  // replaced by its checkpoint, is not this model's number)
  const live = (enc, K = scalingOf(enc)) => {
    const v = client?.version?.(enc);
    return (client?.results(enc) ?? []).filter((r) => (r.scalingKey ?? '') === K && (v == null || r.version == null || r.version === v));
  };
  // the evaluation of `enc` at exactly `length` under the scaling key K: the measured point, else the live one, else null
  const evaluationAt = (enc, length, K) => {
    const p = measured(enc, K).find(([L]) => L === length);
    if (p) return ofShipped(p);
    const r = live(enc, K).find((x) => x.length === length);
    return r ? ofLive(r) : null;
  };
  // partial: a live evaluation on fewer sequences than the shipped ones (drawn apart from the measured points)
  const ofLive = (r) => ({ length: r.length, accuracy: r.accuracy, loss: r.loss, sequences: r.sequences ?? null, measured: false,
    partial: !(sequences && r.sequences >= sequences), result: r });
  const ofShipped = ([length, accuracy, loss]) => ({ length, accuracy, loss, sequences, measured: true, partial: false, result: null });

  const store = {
    /**
     * The shipped sweep ({enc: [[length, accuracy, loss]]}, unscaled), the shipped scaled runs ([{encoding, points:
     * [[length, accuracy, loss]], scalingAt(L): the scaling object applied at L, null for none}]), their sequences a
     * length, and which rows hold the shipped model.
     */
    setShipped({ sweep: s = {}, scaledRuns = [], sequences: n = EXPERIMENT.evalSequences, isShipped = () => false } = {}) {
      sweep = s ?? {};
      scaled = scaledRuns;
      sequences = n;
      fromCheckpoint = isShipped;
      version++;
    },
    /** The sweep client, once the module is loaded (before it, only the shipped points). */
    setClient(c) {
      client = c;
      version++;
    },
    /** `fn(task)`: the task's yardstick (row-words.js yardstick), for the verdict. */
    setYardstick(fn) {
      yardstickFor = fn;
      version++;
    },
    scalingKey: scalingOf,
    /** How many sequences a shipped point rests on (results.json's; the experiment's before it is read). */
    shippedSequences: () => sequences,
    /** A key that changes whenever an answer may (for the views' "draw only what changed"). */
    key: (enc) => `${version}|${scalingOf(enc)}|${measuredApplies(enc)}|${client?.version?.(enc)}|${client?.results(enc).length}|${client?.results(enc).at(-1)?.gen}`,
    /**
     * The evaluation of `enc` at exactly `length`: {length, accuracy, loss, sequences, measured, partial, result} (result: the
     * live sweep's, with its maps, when it is live), or null while none is known.
     */
    at: (enc, length) => evaluationAt(enc, length, scalingOf(enc)),
    /** Every evaluation of `enc`, sorted by length: the measured points and the live ones at the other lengths. */
    series(enc) {
      const out = measured(enc).map(ofShipped);
      const have = new Set(out.map((p) => p.length));
      for (const r of live(enc)) if (!have.has(r.length)) out.push(ofLive(r));
      return out.sort((a, b) => a.length - b.length);
    },
    /**
     * The one "learned" verdict of `enc`'s model (the same everywhere): its evaluation at the training length with
     * no scaling (the model, not a scaling of it) against the task's target and floor (row-words.js learnedAt).
     * {learned: true|false|null (not known yet), reason, at}.
     */
    verdict(enc, task, trainLength) {
      const at = evaluationAt(enc, trainLength, ''); // (under a scaling, a live point is the scaled model's: no verdict from it)
      const y = yardstickFor(task);
      if (!at || !y) return { learned: null, reason: '', at };
      return { ...learnedAt(at, y, trainLength), at };
    },
  };
  return store;
}

/** "64 sequences", "1 sequence". */
export const sequencesText = (n) => `${n} sequence${n === 1 ? '' : 's'}`;
