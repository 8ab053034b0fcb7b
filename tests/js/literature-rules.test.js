// Issue 28's rules, on fixtures built here (nothing written to the tree): the bag-of-tokens floor at each length,
// rules that test each paper's own claim (Liu's U-shape beyond the seeds' spread, Chen's plain fine-tune control,
// Peng's wins above the floor, Ruoss at the same RoPE base), the early-stop header and the attention section.
// Each is checked with the number computed here independently, and by mutation: change a number, the verdict or
// the sentence changes.
import { render } from '../../scripts/results-md.js';
import { attentionSection } from '../../scripts/results-md-attention.js';
import * as W from '../../web/app/shared/results-words.js';
import * as Lit from '../../web/app/story/literature.js';
import { v2Fixture, run } from './results-fixtures.js';

const clone = (x) => JSON.parse(JSON.stringify(x));
const kept = (a1, aL, f1, fL = f1) => (aL - fL) / (a1 - f1);
const paper = (r, id) => Lit.literature(r).find((p) => p.id === id);
const rows = (r, pred) => r.runs.filter(pred);
const base = () => v2Fixture(['none', 'alibi', 'rope', 'sinusoidal', 'rope_random', 'learned_random']);

// copy's bag floor: 0.3 at 1x (T = 32), 0.25 at 2x, 0.2 at 4x, 0.15 at 8x
const BAG = [[32, 0.3], [64, 0.25], [128, 0.2], [256, 0.15]];
function withBag(r, values = BAG) {
  r.tasks.copy.floors.push({ name: 'bag', accuracy: values[0][1], loss: 1.5, note: 'the most frequent input symbol',
    byLength: values.map(([length, accuracy]) => ({ length, accuracy, loss: 1.5 })) });
  return r;
}

describe('the bag-of-tokens floor at each length', () => {
  test('kept reads each length against its own floor, and the sentence names both floors', () => {
    const r = withBag(base());
    const info = W.taskInfo(r, 'copy');
    expect(W.floorOf(info, 128)).toMatchObject({ accuracy: 0.2, accuracyName: 'bag' });
    expect(W.floorOf(info)).toMatchObject({ accuracy: 0.125, accuracyName: 'uniform' }); // no length: length-independent floors only
    const v = W.verdict(r, W.rowsOf(r, 'copy').find((x) => x.encoding === 'alibi'), info);
    expect(v.kept).toBeCloseTo(kept(1, 0.7, 0.3, 0.2), 12);
    const md = render(r);
    expect(md).toContain(`alibi on copy: at 4× the training length (128 tokens) it keeps ${Math.round(100 * kept(1, 0.7, 0.3, 0.2))}% of its accuracy above what always guessing the most common token scores (30% at 1×, 20% at 4×)`);
    expect(md).toMatch(/\| \*always guessing the most common token\* \| \| \| \*30\* \| \*25\* \| \*20\* \| \*15\* \|/);
    // mutation: a higher floor at 4x lowers the kept share
    const m = withBag(base(), [[32, 0.3], [64, 0.25], [128, 0.4], [256, 0.15]]);
    expect(W.verdict(m, W.rowsOf(m, 'copy').find((x) => x.encoding === 'alibi')).kept).toBeCloseTo(kept(1, 0.7, 0.3, 0.4), 12);
  });

  test('the closing note lists the verdicts the bag floor changes', () => {
    const r = withBag(base());
    const changed = W.lengthFloorChanges(r);
    // rope copy [1, .2, .13, .12]: above uniform it keeps (0.13-0.125)/(1-0.125) = 0.6% ("none"), above the bag floor it is below the floor: still "none"
    // alibi copy [1, .9, .7, .4]: 66% ("moderate") -> (0.7-0.2)/(1-0.3) = 71% ("moderate"): no change; none copy (seed 2): 20% -> 14%: limited -> none
    const none = changed.find((c) => c.row === 'none');
    expect(none.old.level).toBe('limited');
    expect(none.now.level).toBe('none');
    expect(render(r)).toContain(`- none, copy: limited (${Math.round(100 * kept(0.95, 0.3, 0.125))}% kept) → none (${Math.round(100 * kept(0.95, 0.3, 0.3, 0.2))}% kept)`);
  });

  test('a seed whose 1x score is within the floor margin of the floor gets no verdict', () => {
    const r = withBag(base(), [[32, 0.91], [64, 0.25], [128, 0.2], [256, 0.15]]);
    const v = W.verdict(r, W.rowsOf(r, 'copy').find((x) => x.encoding === 'alibi'));
    expect(v.kept).toBeNull();
    expect(v.floorSolves).toBe(true);
  });
});

describe('Liu: a U-shape is the middle below both ends beyond the seeds\' spread', () => {
  // kth_retrieval grids: depths [0, 0.5, 1] x lengths [32, 64, 128, 256]; the longest length is the last column
  const setGrid = (r, enc, perSeed) => {
    for (const x of rows(r, (y) => y.task === 'kth_retrieval' && y.encoding === enc)) x.grid.accuracy = perSeed[x.seed];
  };
  const col = (far, mid, near) => [[1, 1, 1, far], [1, 1, 1, mid], [1, 1, 1, near]];

  test('every seed dipping in the middle is a U; one seed whose middle overlaps the ends is not', () => {
    const r = base();
    setGrid(r, 'rope', [col(0.9, 0.3, 0.8), col(0.85, 0.35, 0.9), col(0.8, 0.4, 0.85)]);
    setGrid(r, 'alibi', [col(0.9, 0.2, 0.9), col(0.9, 0.25, 0.9), col(0.95, 0.3, 0.9)]);
    const u = Lit.uShape(r, W.rowsOf(r, 'kth_retrieval').find((x) => x.encoding === 'rope'), 256);
    expect(u).toMatchObject({ u: true, testable: true, depth: 0.5 });
    expect(u.mid).toBeCloseTo(0.35, 12);
    expect(paper(r, 'liu2023').verdict).toBe('not tested faithfully here (under this rule it would agree)'); // the claim is about large models within their context
    expect(paper(r, 'liu2023').text).toContain('U-shape in 2 of 2 testable rows');
    // mutation: one rope seed's middle rises to 0.82, above another seed's far end (0.8): within the spread
    const m = clone(r);
    setGrid(m, 'rope', [col(0.9, 0.3, 0.8), col(0.85, 0.35, 0.9), col(0.8, 0.82, 0.85)]);
    expect(Lit.uShape(m, W.rowsOf(m, 'kth_retrieval').find((x) => x.encoding === 'rope'), 256).u).toBe(false);
    expect(paper(m, 'liu2023').text).toContain('U-shape in 1 of 2 testable rows');
    expect(paper(m, 'liu2023').verdict).toBe('not tested faithfully here (under this rule it would not agree)');
  });

  test('a row with one learned seed cannot be tested', () => {
    const r = base();
    for (const x of rows(r, (y) => y.task === 'kth_retrieval' && y.encoding === 'alibi' && y.seed > 0)) x.learned = false;
    expect(paper(r, 'liu2023').text).toContain('not testable (1 learned seed): alibi');
  });
});

describe('Chen: PI fine-tuned against a plain fine-tune, with the 1x accuracy each keeps', () => {
  const plainTune = (r, acc) => {
    for (const seed of [0, 1, 2]) r.runs.push({ ...run('copy', 'rope', seed, acc), variant: 'finetuned', finetune: { length: 64, steps: 50 }, learned: true });
    return r;
  };
  test('with the control run, the verdict compares the two at the fine-tune length; a better control flips it', () => {
    const r = plainTune(base(), [0.6, 0.4, 0.2, 0.15]);
    const p = paper(r, 'chen2023');
    // PI fine-tuned copy [1, .95, .5, .3] against plain [.6, .4, .2, .15], kept at 64 over the untuned rope's 1x score (1)
    expect(p.verdict).toBe('agrees');
    expect(p.text).toContain(`copy at 64: PI ${Math.round(100 * kept(1, 0.95, 0.125))}% vs plain ${Math.round(100 * kept(1, 0.4, 0.125))}% (1×: PI 100%, plain 60%)`);
    const m = plainTune(base(), [0.6, 0.97, 0.2, 0.15]);
    expect(paper(m, 'chen2023').verdict).toBe('does not agree');
  });
});

describe('Peng: wins counted only where both numbers are above the floor', () => {
  const scaled = (r, sc, acc) => {
    for (const seed of [0, 1, 2]) r.runs.push({ ...run('copy', 'rope', seed, acc), scaling: sc, variant: '', finetune: null, learned: true });
    return r;
  };
  test('a pair below the floor is not counted; lifting plain RoPE above it makes the pair count', () => {
    const r = scaled(scaled(base(), 'ntk', [1, 0.9, 0.5, 0.3]), 'yarn', [1, 0.85, 0.5, 0.3]);
    // plain rope copy at 2x: 0.2, above the 12.5% floor by 7.5 points (< 10): not counted
    expect(paper(r, 'peng2023').verdict).toBe('not tested here');
    expect(paper(r, 'peng2023').text).toContain('copy ntk, copy yarn');
    const m = clone(r);
    for (const x of rows(m, (y) => y.task === 'copy' && y.encoding === 'rope' && y.scaling === 'none' && !y.variant)) x.lengths[1].accuracy = 0.5;
    const p = paper(m, 'peng2023');
    expect(p.verdict).toBe('agrees');
    expect(p.text).toContain(`copy ntk ${Math.round(100 * kept(1, 0.9, 0.125))}% vs ${Math.round(100 * kept(1, 0.5, 0.125))}%`);
    expect(p.text).toContain('better on 2 of 2');
    // more seeds of plain RoPE (merged in later) do not enter a comparison with scalings that lack them
    for (const seed of [3, 4]) m.runs.push({ ...run('copy', 'rope', seed, [1, 0.95, 0.9, 0.9]), variant: '', finetune: null, learned: true });
    expect(paper(m, 'peng2023').text).toBe(p.text);
  });
});

describe('Ruoss: randomized RoPE against RoPE at the same base', () => {
  const withBases = (r) => {
    r.config.model.ropeBase = 16;
    r.config.modelByEncoding = { rope_random: { ropeBase: 10000 } };
    return r;
  };
  test('without a base-10000 RoPE row the randomized row is not compared; with one, it is compared with that row', () => {
    const r = withBases(base());
    expect(paper(r, 'ruoss2023').text).toContain('rope_random (base 10000): no rope row at the same base, not compared');
    expect(paper(r, 'ruoss2023').text).not.toMatch(/rope_random \(base 10000\) \d+% vs rope /);
    for (const seed of [0, 1, 2]) r.runs.push({ ...run('copy', 'rope', seed, [1, 0.97, 0.95, 0.9]), variant: 'base10000', finetune: null, learned: true });
    const p = paper(r, 'ruoss2023');
    expect(p.text).toContain(`copy: rope_random (base 10000) ${Math.round(100 * kept(1, 0.9, 0.125))}% vs rope [base10000] ${Math.round(100 * kept(1, 0.95, 0.125))}%`);
    expect(p.verdict).toBe('not tested faithfully here (under this rule it would not agree)');
  });
});

describe('the header states the early stop, and the attention section reports entropy, sink and log-length scaling', () => {
  test('runs that stopped early and the median steps, from the runs', () => {
    const r = base();
    r.runs.forEach((x, i) => { x.steps = 100 * (i + 1); });
    const train = r.runs.filter((x) => x.scaling === 'none' && !x.finetune);
    train.forEach((x, i) => { x.stepsToTarget = i % 4 === 0 ? null : x.steps; });
    const s = W.trainingStops(r);
    expect(s.runs).toBe(train.length);
    expect(s.stopped).toBe(train.filter((_, i) => i % 4 !== 0).length);
    const md = render(r);
    expect(md).toContain(`${s.stopped} of ${train.length} training runs stopped early`);
    expect(md).not.toContain('for 100 steps');
    train[1].stepsToTarget = null;
    expect(render(r)).toContain(`${s.stopped - 1} of ${train.length} training runs stopped early`);
  });

  test('entropy by length from the runs\' heads, sink and log-length scaling from checkpointProbe', () => {
    const r = base();
    for (const x of rows(r, (y) => y.task === 'copy' && y.scaling === 'none' && !y.variant && !y.finetune)) {
      x.lengths.forEach((l, i) => { l.heads = [{ entropy: 0.5 + 0.1 * i }, { entropy: 0.7 + 0.1 * i }]; });
    }
    r.checkpointProbe = { weights: 'seed 0, int8 and float16 weights', runs: [{ task: 'copy', encoding: 'alibi',
      lengths: [32, 64, 128, 256].map((length, i) => ({ length, accuracy: 1 - 0.2 * i, loss: 0.1, entropy: 1, sink: 0.4 - 0.1 * i })),
      logLength: [32, 64, 128, 256].map((length, i) => ({ length, accuracy: 1 - 0.1 * i, loss: 0.1, entropy: 0.8, sink: 0.5 })) }] };
    const lines = attentionSection(r).join('\n');
    expect(lines).toContain('| alibi | 0.60 | 0.70 | 0.80 | 0.90 | 40% | 30% | 20% | 10% |');
    expect(lines).toContain('| alibi | 80 → 90 | 60 → 80 | 40 → 70 |');
    expect(lines).toContain('copy: the scaling helps in 2 and hurts in 0 of 3 (encoding, length) cells');
    r.checkpointProbe.runs[0].logLength[1].accuracy = 0.5;
    expect(attentionSection(r).join('\n')).toContain('copy: the scaling helps in 2 and hurts in 1 of 3 (encoding, length) cells');
    expect(attentionSection(r).join('\n')).toContain('| alibi | 80 → 50 | 60 → 80 | 40 → 70 |');
  });
});

describe('rows near a rule\'s line are listed with the runs that add seeds', () => {
  test('a kept share moved next to a threshold puts the row on the list, with the command for it', () => {
    const r = base();
    const near = (x) => W.nearTheLine(x).find((n) => n.task === 'copy' && n.row === 'alibi');
    expect(near(r)).toBeUndefined(); // alibi copy keeps (0.7 - 0.125) / 0.875 = 66%: 16 points from the 50% line
    for (const x of rows(r, (y) => y.task === 'copy' && y.encoding === 'alibi')) x.lengths[2].accuracy = 0.6;
    const k = kept(1, 0.6, 0.125); // 54%
    expect(near(r).why).toEqual([`kept ${Math.round(100 * k)}% is within 10 points of the “moderate” line (50%)`]);
    const md = render(r);
    expect(md).toContain(`- alibi, copy (3 seeds): kept ${Math.round(100 * k)}% is within 10 points of the “moderate” line (50%); 95% interval of the kept share ${Math.round(100 * k)}% to ${Math.round(100 * k)}% (3 learned seeds).`);
    expect(md).toMatch(/build\/native\/posenc_train --out \/tmp\/seeds-copy --tasks copy --encodings [a-z_,]*alibi[a-z_,]* --first-seed 3 --seeds 2 --no-scalings/);
  });
});

test('the 95% interval of a near-line row is a t interval over its learned seeds; a row with more seeds says so in the header', () => {
  const r = base();
  for (const x of rows(r, (y) => y.task === 'copy' && y.encoding === 'alibi')) x.lengths[2].accuracy = [0.5, 0.6, 0.7][x.seed];
  const ks = [0.5, 0.6, 0.7].map((a) => kept(1, a, 0.125)), m = ks.reduce((a, b) => a + b) / 3;
  const sd = Math.sqrt(ks.reduce((a, k) => a + (k - m) ** 2, 0) / 2), h = 4.303 * sd / Math.sqrt(3);
  const n = W.nearTheLine(r).find((x) => x.task === 'copy' && x.row === 'alibi');
  expect(n.ci.low).toBeCloseTo(m - h, 12);
  expect(n.ci.high).toBeCloseTo(m + h, 12);
  expect(render(r)).toContain(`95% interval of the kept share ${Math.round(100 * (m - h))}% to ${Math.round(100 * (m + h))}% (3 learned seeds)`);
  expect(render(r)).toContain('3 seeds each, with');
  for (const seed of [3, 4]) r.runs.push({ ...run('copy', 'alibi', seed, [1, 0.9, 0.6, 0.4]), variant: '', finetune: null, learned: true });
  expect(render(r)).toContain('3 seeds each, 5 for 1 rows (added where a verdict sat near a rule’s line)');
  expect(render(r)).toContain('- alibi, copy (5 seeds)');
});

test('the closing note gives the runs and seconds of each experiment added after the main run', () => {
  const r = base();
  expect(render(r)).not.toContain('Experiments added to this results.json');
  for (const seed of [3, 4]) r.runs.push({ ...run('copy', 'alibi', seed, [1, 0.9, 0.6, 0.4]), variant: '', finetune: null, learned: true, trainSeconds: 10 + seed, evalSeconds: 2 });
  r.checkpointProbe = { weights: 'seed 0', runs: [], seconds: 61.4 };
  const md = render(r);
  expect(md).toContain(`- more seeds (3, 4) for the rows near a rule’s line, without the RoPE scalings: 2 runs, ${13 + 14 + 4} s.`);
  expect(md).toContain('- the shipped checkpoints’ probe (sink mass, log-length logit scaling; no training): 0 runs, 61 s.');
});
