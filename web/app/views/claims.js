// The page's words about measured results: the header's summary and each sweep row's offline verdict, all
// computed from web/checkpoints/results.json (written by `npm run train`, scripts/page-results.js) by
// ../results-words.js, never written by hand. With no results shipped, the words say so.
import { summarySentence, rowSentence, tasksOf } from '../results-words.js';
import { NAMES } from '../meta.js';

// The page names rows by the registry's labels (RoPE, ALiBi, …); a variant keeps its id in brackets.
const label = (row) => `${NAMES[row.encoding] ?? row.encoding}${row.variant ? ` [${row.variant}]` : ''}`;

/** The shipped results (the page's subset), or null when this build ships none. */
export async function loadResults() {
  try {
    const res = await fetch(new URL('../../checkpoints/index.json', import.meta.url));
    const files = res.ok ? await res.json() : [];
    if (!Array.isArray(files) || !files.includes('results.json')) return null;
    const r = await fetch(new URL('../../checkpoints/results.json', import.meta.url));
    const results = r.ok ? await r.json() : null;
    return results && Array.isArray(results.runs) && results.config ? results : null;
  } catch {
    return null;
  }
}

const measured = (results, task) => (results && tasksOf(results).includes(task) ? task : null);

/** The header's sentence for the page's task. */
export function headerWords(results, task) {
  if (!results) return 'No offline measurements ship with this build (docs/results.json is written by npm run train).';
  return measured(results, task) ? summarySentence(results, task, label) : `No offline measurement of the task ${task} in docs/results.json.`;
}

/** A sweep row's words for the page's task. */
export function rowWords(results, task, encoding) {
  if (!results || !measured(results, task)) return '';
  return rowSentence(results, task, encoding, label);
}
