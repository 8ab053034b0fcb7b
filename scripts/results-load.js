// Reads docs/results.json together with the experiments kept beside it: every docs/experiments/<name>.json (written by
// its own tool, e.g. a paper's replication) becomes results.experiments[<name>]. results-md.js, page-results.js and the
// tests read results through here, so the literature rules (web/app/story/literature.js) and the page see one object.
//   readResults(file) -> { ...results.json, experiments: { <name>: {...} }, rules: [docs/rules/*.json, oldest first] }
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The experiments beside a results.json: {name: parsed json} from its `experiments/` folder ({} without one). */
export function readExperiments(resultsFile) {
  const dir = join(dirname(resultsFile), 'experiments');
  if (!existsSync(dir)) return {};
  const names = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  return Object.fromEntries(names.map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(dir, f), 'utf8'))]));
}

/**
 * The frozen literature rules (docs/rules/<name>.json, one dated version each; see docs/rules/README.md), oldest
 * first: beside the results file's folder when it has rules/, else the repository's.
 */
export function readRules(resultsFile = null) {
  const local = resultsFile && join(dirname(resultsFile), 'rules');
  const dir = local && existsSync(local) ? local : new URL('../docs/rules/', import.meta.url).pathname;
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
    .sort((a, b) => a.version.localeCompare(b.version));
}

/** results.json with its experiments and the frozen rules attached. */
export function readResults(resultsFile) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const experiments = readExperiments(resultsFile);
  return { ...results, ...(Object.keys(experiments).length ? { experiments } : {}), rules: readRules(resultsFile) };
}
