// Timing: every variant of a kernel is warmed up (V8 first runs wasm and JS
// in a baseline tier; tier-up takes many calls), then the variants run in
// interleaved rounds, so that a burst of load on a shared machine hits all of
// them alike. A sample averages enough calls to last `minMs`; the figure is
// the median sample. Ratios between variants come from the same rounds.

const now = () => performance.now();

function warm(fn, warmMs, maxCalls) {
  const t0 = now();
  let calls = 0, last = 0;
  while (calls < maxCalls) {
    const t = now();
    fn();
    last = now() - t;
    calls++;
    if (now() - t0 >= warmMs && calls >= 3) break;
    if (last > warmMs) break; // one call is longer than the warm-up: enough
  }
  return last;
}

/**
 * @param {Record<string, () => void>} variants
 * @param {{rounds?: number, minMs?: number, warmMs?: number, budgetMs?: number}} [o]
 *   budgetMs caps rounds * (one call) for slow variants (at least 3 rounds).
 * @returns {Record<string, {ms: number, samples: number[], calls: number}>}
 */
export function measure(variants, { rounds = 7, minMs = 50, warmMs = 400, budgetMs = 12000 } = {}) {
  const names = Object.keys(variants);
  const plan = {};
  for (const name of names) {
    const once = Math.max(1e-3, warm(variants[name], warmMs, 2000));
    plan[name] = { calls: Math.max(1, Math.round(minMs / once)), rounds: Math.max(3, Math.min(rounds, Math.floor(budgetMs / once))) };
  }
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  const maxRounds = Math.max(...names.map((n) => plan[n].rounds));
  for (let r = 0; r < maxRounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]); // rotate who goes first
    for (const name of order) {
      if (samples[name].length >= plan[name].rounds) continue;
      const { calls } = plan[name];
      const t0 = now();
      for (let i = 0; i < calls; i++) variants[name]();
      samples[name].push((now() - t0) / calls);
    }
  }
  return Object.fromEntries(names.map((n) => {
    const s = samples[n].slice().sort((a, b) => a - b);
    return [n, { ms: s[s.length >> 1], samples: samples[n].map((x) => +x.toPrecision(4)), calls: plan[n].calls }];
  }));
}
