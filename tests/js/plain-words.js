// Words a reader cannot parse in a sentence the page generates (issue 38): each must give way to plain words, or be
// explained on hover or focus where it first appears. The words tests (tests/js/results-words.test.js,
// tests/js/row-words.test.js, tests/browser/results-words.test.js) hold every generated sentence to this list.
export const JARGON = [
  [/\bbag\b/i, 'a guess named by its id ("bag guess", "bag floor")'],
  [/\b(uniform|content|unigram|bigram) (guess|floor)\b/i, 'a guess named by its id'],
  [/\bfloor\b/i, '"floor": say what the guess does'],
  [/\babove-floor\b/i, '"above-floor"'],
  [/\b(primacy|recency)\b/i, 'a depth effect named by the literature, not described'],
  [/(?<!“)lost in the middle(?!”)/i, '"lost in the middle" not after the plain words it names'],
  [/(^|[^\w.])[-−]\d+(\.\d+)?%/, 'a negative percentage (a share kept below zero is none)'],
  [/\bloss\/\d/i, '"loss/N": a scaled loss'],
  [/\bgradient\b/i, '"gradient" (in a model, a gradient is something else)'],
  [/\bheld-out\b/i, '"held-out": say what the check is scored on (new sequences, never trained on)'],
  [/\bentropy\b[^.]*\bnats\b/i, '"entropy ... nats": say how widely attention spreads'],
  [/\bcausal mask\b/i, '"causal mask": say that a token sees only the tokens before it'],
  [/\bneedle-depth\b/i, '"needle-depth x length grid": say what is measured at each depth and length'],
];

/** The jargon found in `text`: [[match, why]]; empty when the sentence is plain. */
export const jargonIn = (text) => JARGON.flatMap(([re, why]) => {
  const m = re.exec(text);
  return m ? [[m[0], why]] : [];
});
