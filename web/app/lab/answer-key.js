// Where the answer is: for each query that predicts an answer token, the key position holding that token
// (the "correct key"), for the tasks whose answer sits at a fixed place (cpp/src/tasks.cpp layouts):
//   copy     BOS s1..sh SEP s1..sh   query q (SEP onward) predicts s at q+1, found at key q - SEP + 1 (the offset diagonal)
//   reverse  BOS s1..sh SEP sh..s1   query q predicts the mirror: key 2·SEP - 1 - q (the anti-diagonal)
// Other tasks have no fixed place: []. Used to pick the head that shows the effect (sweep-core.js, layer
// "auto") and to mark the correct key on the maps (sweep-view.js paintMaps).
const SEP = 2;

/** [[query, key], …] of one sequence of `task` (tokens: its token ids), in query order. */
export function answerKeys(task, tokens) {
  if (task !== 'copy' && task !== 'reverse') return [];
  const T = tokens.length, sep = Array.prototype.indexOf.call(tokens, SEP);
  if (sep < 1) return [];
  const out = [];
  for (let q = sep; q < T - 1; q++) {
    const key = task === 'copy' ? q - sep + 1 : 2 * sep - 1 - q;
    if (key >= 1 && key < sep) out.push([q, key]);
  }
  return out;
}

/**
 * How well each head of one layer marks the correct key: `maps` [head, query, key] (T x T each) of one sequence.
 * With answer keys: the mean weight on the correct key over the answer queries. Without (a task with no fixed
 * place): the mean over queries of the largest weight (how sharp the head is). Returns {scores, kind}.
 */
export function headScores(maps, heads, T, keys) {
  const scores = new Float64Array(heads);
  for (let h = 0; h < heads; h++) {
    const o = h * T * T;
    if (keys.length) {
      for (const [q, k] of keys) scores[h] += maps[o + q * T + k];
      scores[h] /= keys.length;
    } else {
      for (let q = 0; q < T; q++) {
        let m = 0;
        for (let k = 0; k <= q; k++) m = Math.max(m, maps[o + q * T + k]);
        scores[h] += m / T;
      }
    }
  }
  return { scores, kind: keys.length ? 'answer' : 'peak' };
}
