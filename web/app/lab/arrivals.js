// When to draw what arrives in the background: the sweep's results at lengths other than the one on screen
// (points of the curves) and the training panel's progress. While models train they arrive dozens of times a
// second, and a frame that changes any canvas costs the whole rendering pipeline (most of it paint and commit, whatever
// the change's size), so they are drawn at most once per `ms` slot of the
// animation clock. Every gate shares the slots (they are multiples of `ms` of the frame time), so the sweep
// view and the training panel redraw in the same frames. What the reader is waiting for (the pictures of
// the length on screen, a model, a change of status, anything else) is drawn on the next frame.
// Used by the page (main.js), <posenc-explorer> and the training panel (train-view.js).
export const ARRIVAL_MS = 100;

/**
 * A frame loop's one pending wake-up: `in(ms, now)` has `request` (which asks for an animation frame) called
 * `ms` from `now`, unless a wake-up already set comes sooner. Within about a frame it is called at once; a longer
 * wait is a timer (not early: a frame that came before a slot's start would find nothing due and ask for a
 * second one; the frame lands at most a vsync late); Infinity: never. So that what arrives
 * between frames (sweep results, training progress: dozens a second) asks for no frame of its own, only for
 * the slot it is due in: a frame that draws nothing still costs Chromium a rendering pass.
 */
export function createWake(request) {
  let timer = 0, at = Infinity;
  const cancel = () => {
    clearTimeout(timer);
    timer = 0;
    at = Infinity;
  };
  return {
    in(ms, now = performance.now()) {
      if (now + ms >= at) return;
      cancel();
      if (ms < 20) request();
      else if (ms < Infinity) {
        at = now + ms;
        timer = setTimeout(() => {
          timer = 0;
          at = Infinity;
          request();
        }, ms);
      }
    },
    /** Forget the wake-up (a frame was asked for, or the loop stopped). */
    cancel,
  };
}

export function createArrivals(ms = ARRIVAL_MS) {
  let waiting = false, drawnSlot = -Infinity;
  const slot = (now) => Math.floor(now / ms);
  const wait = () => {
    waiting = true;
  };
  return {
    /** Something waits to be drawn. */
    wait,
    /** Sorts one sweep update (the controller's onUpdate(encoding, kind, length)): true if it is for the next frame. */
    urgent(kind, length, shownLength) {
      if (kind !== 'result' || length === shownLength) return true;
      wait();
      return false;
    },
    /** Whether something waits to be drawn. */
    pending: () => waiting,
    /** Whether what waits is due at frame time `now`: a frame of a slot in which nothing was drawn. */
    due: (now) => waiting && slot(now) !== drawnSlot,
    /** Milliseconds from `now` until what waits is due (0 if it is, Infinity if nothing waits). */
    msToDue: (now) => (!waiting ? Infinity : slot(now) !== drawnSlot ? 0 : (drawnSlot + 1) * ms - now),
    /** A frame at `now` drew everything (what waited too). */
    drawn(now) {
      waiting = false;
      drawnSlot = slot(now);
    },
  };
}
