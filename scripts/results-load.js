// Reads docs/results.json together with the experiments kept beside it: every docs/experiments/<name>.json (written by
// its own tool, e.g. a paper's replication) becomes results.experiments[<name>]. results-md.js, page-results.js and the
// tests read results through here, so the literature rules (web/app/story/literature.js) and the page see one object.
//   readResults(file) -> { ...results.json, experiments: { <name>: {...} } }
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The experiments beside a results.json: {name: parsed json} from its `experiments/` folder ({} without one). */
export function readExperiments(resultsFile) {
  const dir = join(dirname(resultsFile), 'experiments');
  if (!existsSync(dir)) return {};
  const names = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  return Object.fromEntries(names.map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(dir, f), 'utf8'))]));
}

/** results.json with its experiments attached. */
export function readResults(resultsFile) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const experiments = readExperiments(resultsFile);
  return Object.keys(experiments).length ? { ...results, experiments } : results;
}
