// The page's words about measured results: the header's summary and each sweep row's offline verdict, all
// computed from the shipped results (written by `npm run train`, scripts/page-results.js) by
// results-words.js, never written by hand. With no results shipped, the words say so. Rows and tasks
// are named as a reader reads them (meta.js), never by their ids.
import { summarySentence, rowSentence, tasksOf } from './results-words.js';
import { rowLabel, taskName } from './meta.js';

// The index of the shipped checkpoint directory (a static host has no listing), fetched once.
let index = null;
const shippedFiles = () => (index ??= fetch(new URL('../../checkpoints/index.json', import.meta.url))
  .then((res) => (res.ok ? res.json() : []), () => []).then((files) => (Array.isArray(files) ? files : [])));

/** A JSON file shipped beside the checkpoints (`name` as the index lists it), or null when this build ships none. */
export async function shippedJson(name) {
  try {
    if (!(await shippedFiles()).includes(name)) return null;
    const r = await fetch(new URL(`../../checkpoints/${name}`, import.meta.url));
    return r.ok ? await r.json() : null;
  } catch {
    return null;
  }
}

/** The shipped results (the page's subset), or null when this build ships none. */
export async function loadResults() {
  const results = await shippedJson('results.json');
  return results && Array.isArray(results.runs) && results.config ? results : null;
}

const measured = (results, task) => (results && tasksOf(results).includes(task) ? task : null);

/** The header's sentence for the page's task: over the sweep's rows (the encodings, no variants). */
export function headerWords(results, task) {
  if (!results) return 'No offline measurements ship with this build.';
  return measured(results, task) ? summarySentence(results, task, rowLabel, { taskName: taskName(task), only: (row) => !row.variant })
    : `No offline measurement of the ${taskName(task)} task ships with this build.`;
}

/** A sweep row's words for the page's task. */
export function rowWords(results, task, encoding) {
  if (!results || !measured(results, task)) return '';
  return rowSentence(results, task, encoding, rowLabel, taskName);
}
