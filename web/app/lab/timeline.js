// The length sweep's lengths and playhead, shared by the page (main.js) and
// <posenc-explorer>. `state` is the live state object (trainLength,
// sweepFactor, length, play, speed); the timeline reads and writes it.
const POINTS = 32; // lengths per sweep; they include 1x, 4x and 8x the training length
const SWEEP_SECONDS = 8; // a whole sweep at speed 1
const HOLD_SECONDS = 1.5; // pause at the end of a sweep before it starts over

export function createTimeline(state) {
  const maxLength = () => state.trainLength * state.sweepFactor;
  const grid = () => Array.from({ length: POINTS }, (_, k) => ((k + 1) * maxLength()) / POINTS);
  const snap = (T) => grid().reduce((best, g) => (g <= T ? g : best), grid()[0]);
  let t = state.length; // continuous playhead
  let holdUntil = 0;
  let last = 0;

  /** Snap `T` to the grid and make it the current length; true if state.length changed. */
  function set(T, keepPlayhead = false) {
    const L = snap(Math.max(grid()[0], Math.min(maxLength(), T)));
    if (!keepPlayhead) t = L;
    if (L === state.length) return false;
    state.length = L;
    return true;
  }

  return {
    maxLength,
    grid,
    snap,
    set,
    /** Lengths to compute: the one on screen first, then the others in order. */
    ordered() {
      const g = grid();
      const i = Math.max(0, g.indexOf(state.length));
      return [...g.slice(i), ...g.slice(0, i).reverse()];
    },
    /** Start playing from the beginning if the playhead is at the end. */
    rewindIfAtEnd() {
      if (state.length >= maxLength()) t = grid()[0] - 1e-9;
    },
    /**
     * Milliseconds from animation time `now` until tick() next changes the length: Infinity when not playing.
     * (The page sleeps between frames until then: the length is all the playhead shows.)
     */
    msToNextChange(now) {
      if (!state.play) return Infinity;
      if (holdUntil) return Math.max(0, holdUntil - now);
      const next = grid().find((g) => g > t) ?? maxLength();
      return Math.max(0, ((next - t) * SWEEP_SECONDS * 1000) / (state.speed * maxLength()));
    },
    /** Advance the playhead to animation time `now` (ms) if playing; true if state.length changed. */
    tick(now) {
      // (at most a second at a time: a page that was hidden does not jump far; frames may be that far apart)
      const dt = Math.min(1, (now - (last || now)) / 1000);
      last = now;
      if (!state.play) return false;
      if (holdUntil) {
        if (now <= holdUntil) return false;
        holdUntil = 0;
        return set(grid()[0]);
      }
      t += (dt * state.speed * maxLength()) / SWEEP_SECONDS;
      if (t >= maxLength()) {
        t = maxLength();
        holdUntil = now + HOLD_SECONDS * 1000;
      }
      return set(t, true);
    },
  };
}
