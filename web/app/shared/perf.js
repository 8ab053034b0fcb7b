// Frame-time measurement and a small toggleable readout. Always measures
// (cheaply); shows numbers only when the `perf` state flag is on.
export function createPerf(el, extra = () => '') {
  const frames = new Float64Array(240);
  const draws = new Float64Array(240);
  let n = 0, last = 0, shownAt = 0;
  const stats = (a) => {
    const k = Math.min(n, a.length);
    if (!k) return { mean: 0, p95: 0, max: 0 };
    const s = Array.from(a.subarray(0, k)).sort((x, y) => x - y);
    return { mean: s.reduce((p, q) => p + q, 0) / k, p95: s[Math.floor(0.95 * (k - 1))], max: s[k - 1] };
  };
  return {
    visible: false,
    /** Call once per animation frame with the rAF timestamp and the time spent drawing. */
    frame(now, drawMs) {
      if (last) {
        frames[n % frames.length] = now - last;
        draws[n % draws.length] = drawMs;
        n++;
      }
      last = now;
      if (this.visible && now - shownAt > 500) {
        shownAt = now;
        const f = stats(frames), d = stats(draws);
        el.textContent = `${(1000 / (f.mean || 1)).toFixed(0)} fps · frame ${f.mean.toFixed(1)} ms (p95 ${f.p95.toFixed(1)}, max ${f.max.toFixed(1)}) · ` +
          `draw ${d.mean.toFixed(2)} ms (max ${d.max.toFixed(1)}) ${extra()}`;
      }
    },
    reset() { n = 0; last = 0; },
    stats: () => ({ frames: stats(frames), draws: stats(draws), count: Math.min(n, frames.length) }),
  };
}
