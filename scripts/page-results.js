// docs/results.json -> web/checkpoints/results.json: the part of the results the page reads (the words of
// its rows and claims, web/app/shared/claims.js, and the depth grids, story/retrieval.js), without the
// per-head and per-position detail; with the experiments beside results.json (docs/experiments/) and the frozen
// literature rules (docs/rules/), which the page's literature verdicts are computed from. Run by `npm run train`; also alone:
//   node scripts/page-results.js [results.json] [out.json]
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { readResults } from './results-load.js';

const LENGTH_FIELDS = ['length', 'accuracy', 'loss', 'oracleAccuracy', 'oracleLoss', 'untrainedParameters'];
const RUN_FIELDS = ['task', 'encoding', 'variant', 'scaling', 'seed', 'learned', 'finetune', 'stepsToTarget', 'grid'];
const pick = (o, keys) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

/** The page's subset of a results object. */
export function pageResults(r) {
  return {
    version: r.version, config: r.config, ...(r.tasks ? { tasks: r.tasks } : {}),
    runs: r.runs.map((x) => ({ ...pick(x, RUN_FIELDS), lengths: (x.lengths ?? []).map((l) => pick(l, LENGTH_FIELDS)) })),
    // the literature verdicts (story/literature.js) read the experiments beside results.json and the frozen rules
    ...(r.experiments ? { experiments: r.experiments } : {}), ...(r.rules ? { rules: r.rules } : {}),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = new URL('..', import.meta.url).pathname;
  const input = process.argv[2] ?? `${root}docs/results.json`;
  const output = process.argv[3] ?? `${root}web/checkpoints/results.json`;
  writeFileSync(output, JSON.stringify(pageResults(readResults(input))));
  console.log(`wrote ${output}`);
}
