// The "RoPE scaling in an LLM-like spectrum" section of docs/results.md (scripts/results-md.js): the experiment of
// cpp/tools/spectrum_main.cpp (results.experiments.spectrum). The spectrum table is computed from each setting's
// head_dim, base and context; every cell and sentence from the experiment's numbers.
import { RULES, pct, pct1 } from '../web/app/shared/results-words.js';
import { ropeSpectrum } from '../web/app/story/literature.js';
import { rotarySpectrum, llmSpectrum, LLM_SETTINGS, FAST_TURNS, spectrumFloor, cellOf, runsOf, andList, pretrainedOne, aboveFloor, middleSpectrum } from '../web/app/rope/spectrum.js';

const NAMES = { none: 'plain RoPE', linear: 'PI', ntk: 'NTK', yarn: 'YaRN' };
const minutes = (s) => (s / 60).toFixed(1);
const thousands = (x) => x.toLocaleString('en-US');

/** The rows of the section's tables: zero shot with each scaling, then the three fine-tunes. */
export const SPECTRUM_ROWS = [
  ...['none', 'linear', 'ntk', 'yarn'].map((scaling) => ({ kind: 'zeroShot', scaling })),
  ...['linear', 'yarn', 'none'].map((scaling) => ({ kind: 'finetuned', scaling })),
];

const rowName = (exp, r) => (r.kind === 'zeroShot' ? `zero shot, ${NAMES[r.scaling]}${r.scaling === 'none' ? '' : ' (factor L / T)'}`
  : `fine-tuned at ${exp.config.finetune.length}, ${r.scaling === 'none' ? 'no interpolation' : `${NAMES[r.scaling]} ×${exp.config.factor}`}`);

/** One cell: the mean over the learned seeds in %, with each seed's value where they disagree. */
function cellText(c) {
  if (c.mean == null) return '–';
  return `${pct(c.mean)}${c.disagree ? ` (${c.values.map((v) => `s${v.seed} ${pct(v.accuracy)}`).join(', ')})` : ''}`;
}

const spectrumRow = (name, s) => `| ${name} | ${s.headDim} | ${thousands(s.base)} | ${thousands(s.T)} | ${s.pairs} | ${s.turning} | ${s.slowest.toFixed(1)} | ${s.fast} |`;

/** The section's lines (empty without the experiment). `results`: the main results, for its own RoPE row. */
export function spectrumSection(exp, results) {
  if (!exp?.runs?.length) return [];
  const lines = [], out = (s = '') => lines.push(s);
  const c = exp.config, T = c.trainLength, lengths = c.evalLengths;
  const learned = exp.runs.filter((r) => r.learned).length;
  const cost = exp.cost ?? {};
  const main = results?.config ? ropeSpectrum(results) : null;
  const maxDistance = (L) => Math.floor((L - 2) / 2); // h: the query at SEP + j reads x_(j+1), h tokens back

  out('## RoPE scaling in an LLM-like spectrum');
  out();
  const mid = middleSpectrum(exp), llama = llmSpectrum('Llama 2');
  out(`${main ? `The main experiment’s RoPE has ${main.pairs} rotary pairs at T = ${main.T}, of which ${main.pairs - main.turning} ${main.pairs - main.turning === 1 ? 'does' : 'do'} not turn within T, so PI, NTK and YaRN have little untrained slow band to fix there. ` : ''}` +
    `Here RoPE has head_dim ${c.model.headDim} at T = ${T}: at base ${thousands(mid.base)}, ${mid.fast} pairs turn ${FAST_TURNS} times or more within T and the slowest period is ${mid.slowest.toFixed(1)} T (Llama 2: ${llama.fast} pairs, ${llama.slowest.toFixed(1)} T). ` +
    `Each pair’s period is 2π base^(2i/head_dim); the table computes it for each setting. YaRN (beta_fast 32, beta_slow 1) leaves the pairs with ${FAST_TURNS} or more turns within T as they are and fully interpolates the pairs that do not turn once; its ramp mixes the rest.`);
  out();
  out('| setting | head_dim | base | T | pairs | pairs that turn within T | slowest period / T | pairs with ≥ 32 turns in T |');
  out('|---|---:|---:|---:|---:|---:|---:|---:|');
  if (main) out(spectrumRow('posenc main experiment', main));
  for (const s of LLM_SETTINGS) out(spectrumRow(s.name, llmSpectrum(s.name)));
  for (const b of c.bases) out(spectrumRow(`this experiment, base ${thousands(b)}`, rotarySpectrum(c.model.headDim, b, T)));
  out();
  const params = exp.runs[0]?.parameters;
  out(`- Task: copy over ${c.symbols} symbols, [BOS, x1 … xh, SEP, x1 … xh], scored on the h copied tokens. In training h is drawn from 1 to ${Math.floor((T - 2) / 2)}, so every length up to T occurs; the evaluation fills each length. ` +
    `Each answer’s source is h tokens back: at most ${maxDistance(T)} in training, ${andList(lengths.slice(1).map((L) => `${maxDistance(L)} at ${L / T}×`))}.`);
  out(`- Why it fits: every answer needs attention across the whole input at distances the model was or was not trained on, which is where RoPE’s slow pairs leave their trained range. What it cannot show: language modelling perplexity, or recall from natural text; a model may also copy by matching content (the token after the current one’s earlier occurrence), so it tests long-distance attention more than exact positional addressing.`);
  out(`- Model: ${c.model.layers} layers, d_model ${c.model.dModel}, ${c.model.heads} heads${params ? `, ${thousands(params)} parameters` : ''}. Pretraining: ${c.steps} steps of batch ${c.batch}` +
    `${c.shortSteps ? `, the first ${c.shortSteps} at length ${c.shortLength} (a length warmup), the rest at ${T}` : ''}, lr ${c.lr} → ${c.minLr} (cosine, ${c.warmup} warmup steps), ${thousands(c.pretrainTokens)} token slots.`);
  out(`- Fine-tunes: ${c.finetune.steps} steps of batch ${c.finetune.batch} at ${c.finetune.length} (${thousands(c.finetune.tokens)} token slots, ${(100 * c.finetune.share).toFixed(1)}% of pretraining; Chen et al. fine-tuned LLaMA at most 1000 steps, a small share of its pretraining), lr ${c.finetune.lr} → ${c.finetune.minLr}, ` +
    `PI and YaRN at factor ${c.factor}, which they keep at every length, 1× included; the plain fine-tune is Chen et al.’s control. Zero-shot scalings use factor L / T past T (NTK: the base HF’s dynamic NTK gives at length L, in one forward).`);
  const fl = lengths.map((L) => spectrumFloor(exp, L));
  out(`- Evaluation: ${c.evalSequences} full-length sequences per length (the same for every model). Floors: chance ${pct1(exp.floors[0].uniform.accuracy)}%, ` +
    `the bag of tokens (the most frequent input symbol) ${lengths.map((L, i) => `${pct1(exp.floors[i].bag.accuracy)}% at ${L / T}×`).join(', ')}. ` +
    `A seed has learned when its 1× accuracy is above the best floor by more than ${pct(RULES.floorMargin)} points: ${learned} of ${exp.runs.length} runs did. The tables give the mean over the learned seeds (each seed where they differ by more than ${pct(RULES.disagree)} points).`);
  if (cost.total) {
    out(`- CPU time (one thread): pretraining ${minutes(cost.pretrain.cpuSeconds)} min, zero-shot evaluation ${minutes(cost.zeroShot.cpuSeconds)} min, fine-tunes ${minutes(cost.finetune.cpuSeconds)} min, ` +
      `their evaluation ${minutes(cost.finetunedEval.cpuSeconds)} min; ${minutes(cost.total.cpuSeconds)} min in all. \`npm run train:spectrum\` reruns it.`);
  }
  out();

  for (const b of c.bases) {
    const s = rotarySpectrum(c.model.headDim, b, T), runs = runsOf(exp, b), not = runs.filter((r) => !r.learned);
    out(`### Base ${thousands(b)}: ${s.turning} of ${s.pairs} pairs turn within T, slowest period ${s.slowest.toFixed(1)} T, ${s.fast} with ≥ ${FAST_TURNS} turns`);
    out();
    out(`Accuracy in %, ${runs.length - not.length} of ${runs.length} seeds learned${not.length ? ` (left out: ${not.map((r) => `seed ${r.seed}, ${pct(pretrainedOne(exp, r))}% at 1×`).join('; ')})` : ''}.`);
    out();
    out(`| model | ${lengths.map((L) => `${L} (${L / T}×)`).join(' | ')} |`);
    out(`|---|${lengths.map(() => '---:').join('|')}|`);
    for (const r of SPECTRUM_ROWS) out(`| ${rowName(exp, r)} | ${lengths.map((L) => cellText(cellOf(exp, b, r.kind, r.scaling, L))).join(' | ')} |`);
    out(`| *the best simple guess* | ${fl.map((f) => `*${pct1(f.accuracy)}*`).join(' | ')} |`);
    out();
  }

  // Computed sentences: the best zero-shot row at the longest length, and the 1x accuracy each fine-tune keeps.
  const Lmax = lengths.at(-1), ok = c.bases.filter((b) => cellOf(exp, b, 'zeroShot', 'none', T).seeds > 0);
  if (ok.length) {
    const best = ok.map((b) => {
      const cells = ['none', 'linear', 'ntk', 'yarn'].map((sc) => ({ sc, cell: cellOf(exp, b, 'zeroShot', sc, Lmax) }));
      const top = cells.reduce((x, y) => (y.cell.mean > x.cell.mean ? y : x));
      return aboveFloor(exp, top.cell, Lmax) ? `${NAMES[top.sc]} at base ${thousands(b)} (${pct(top.cell.mean)}%)`
        : `none above the floor at base ${thousands(b)} (at most ${pct(top.cell.mean)}%)`;
    });
    out(`- Zero shot at ${Lmax / T}× (${Lmax} tokens), the best scaling above the floor by more than ${pct(RULES.floorMargin)} points: ${andList(best)}.`);
    const keep = (sc) => ok.map((b) => `${pct(cellOf(exp, b, 'finetuned', sc, T).mean)}%`).join(' / ');
    out(`- At 1×, per base (${ok.map(thousands).join(' / ')}): before fine-tuning ${ok.map((b) => `${pct(cellOf(exp, b, 'zeroShot', 'none', T).mean)}%`).join(' / ')}; ` +
      `after fine-tuning with PI ${keep('linear')}, with YaRN ${keep('yarn')}, without interpolation ${keep('none')}.`);
    out('- The literature rows of Chen et al. and Peng et al. above read their verdicts from these tables.');
    out();
  }
  return lines;
}

/** The closing note's line for this experiment (results-md.js addedRuns): its runs and CPU seconds. */
export function spectrumAdded(exp) {
  const c = exp.config;
  return { what: `the RoPE spectrum experiment (head_dim ${c.model.headDim} at T = ${c.trainLength}, ${c.bases.length} bases × ${c.seeds.length} seeds; each run pretrains, evaluates zero shot and fine-tunes three copies; CPU time on one thread, not wall time)`,
    runs: exp.runs.length, seconds: exp.cost.total.cpuSeconds };
}
