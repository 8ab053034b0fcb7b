// The page's literature section: each paper's claim, in its own words, and what these models show about it, with the
// verdict and how it changes with the way seeds are combined ("near the line" when it does). Every word after the
// quote is computed by literature.js from the shipped results (results.json with its experiments and frozen rules).
import { literature, sensitivityText } from './literature.js';

/** [{id, paper, claim, verdict, near, sentence}] from the results, or [] when they carry no frozen rules. */
export function literatureWords(results) {
  if (!results?.rules?.length) return [];
  return literature(results).map((p) => {
    const sens = sensitivityText(p);
    const near = p.near ? ' It sits near the line: the verdict changes with how the seeds are combined.' : '';
    const why = p.why ? ` (${p.why})` : '';
    return { id: p.id, paper: p.paper, claim: p.claim, verdict: p.label, near: p.near,
      sentence: `${p.verdict[0].toUpperCase()}${p.verdict.slice(1)}${why}.${near}${sens ? ` By statistic: ${sens}.` : ''}` };
  });
}

/** Fills `list` (a <ul>) with one item per paper. */
export function renderLiterature(list, results) {
  const doc = list.ownerDocument;
  list.replaceChildren(...literatureWords(results).map((w) => {
    const li = doc.createElement('li');
    li.dataset.paper = w.id;
    const head = doc.createElement('b'), quote = doc.createElement('q'), verdict = doc.createElement('span');
    head.textContent = w.paper;
    quote.textContent = w.claim.replace(/[“”]/g, '');
    verdict.className = `literature-verdict${w.near ? ' near-line' : ''}`;
    verdict.textContent = w.sentence;
    li.append(head, ': ', quote, ' ', verdict);
    return li;
  }));
}
