// What the reader is waiting for comes first. While any foreground work runs (the model view's forwards, which a
// reader started and watches), the page's background work (the length sweep's Workers, filling in the lengths that
// are not on screen) waits between two of its steps, so the foreground gets the cores: on a 2-core machine the
// sweep's two Workers would otherwise take half of them (bench/lm-figure.js measures the difference).
// One registry per page, shared by every explorer on it, as the training slots of workers.js are.
const page = { holds: 0, listeners: new Set() };
const tell = () => { for (const fn of page.listeners) fn(page.holds > 0); };

/** Begin foreground work; returns release(), which ends it (calling it again does nothing). */
export function holdBackground() {
  if (page.holds++ === 0) tell();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--page.holds === 0) tell();
  };
}

/** Call fn(held) now and whenever that changes; returns unsubscribe(). */
export function onBackgroundHold(fn) {
  page.listeners.add(fn);
  fn(page.holds > 0);
  return () => page.listeners.delete(fn);
}
