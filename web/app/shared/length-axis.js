// The length axis: every chart of a quantity against the input length draws length on a log scale, and the length
// sliders (the page's bars, <posenc-explorer>'s) move on that same scale, so a slider's travel matches the chart
// under it (half the travel is not spent past 8×). One mapping, d3's scaleLog, for the charts and the sliders.
import { scaleLog } from '../../vendor/d3.js';

/** The position (0 at `lo`, 1 at `hi`) of a length on the log axis from `lo` to `hi`; `.invert(t)` gives the length. */
export const lengthAxis = (lo, hi) => scaleLog().domain([lo, hi]).range([0, 1]);

/** A length slider's positions: 0 .. SLIDER_STEPS along the log axis. */
export const SLIDER_STEPS = 1000;

/** The length of `grid` (the timeline's lengths) nearest to `L` on the log axis. */
export const nearestOnAxis = (grid, L) =>
  grid.reduce((b, x) => (Math.abs(Math.log(x / L)) < Math.abs(Math.log(b / L)) ? x : b), grid[0]);

/** The slider position of length `L` on the axis of `grid`. */
export const sliderPosition = (grid, L) => Math.round(lengthAxis(grid[0], grid.at(-1))(Math.min(grid.at(-1), Math.max(grid[0], L))) * SLIDER_STEPS);

/** The grid length at slider position `p`. */
export const lengthAtPosition = (grid, p) => nearestOnAxis(grid, lengthAxis(grid[0], grid.at(-1)).invert(Math.min(SLIDER_STEPS, Math.max(0, p)) / SLIDER_STEPS));

/**
 * Makes `input` (type=range) a length slider on the log axis of `grid()`: dragging or tapping picks the nearest
 * length there; the keys step along the grid (arrows: one length, Page Up/Down: a quarter of the sweep,
 * Home/End: the ends), as the page's own keys do. `onLength(L)` gets a length of the grid. Returns `show(L, label)`,
 * which puts the thumb at L and says it in words (aria-valuetext).
 */
export function bindLengthSlider(input, { grid, onLength }) {
  input.min = '0';
  input.max = String(SLIDER_STEPS);
  input.step = '1';
  input.addEventListener('input', () => onLength(lengthAtPosition(grid(), Number(input.value))));
  input.addEventListener('keydown', (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const g = grid(), i = Math.max(0, g.indexOf(lengthAtPosition(g, Number(input.value))));
    const page = Math.max(1, Math.round(g.length / 4));
    const to = { ArrowRight: i + 1, ArrowUp: i + 1, ArrowLeft: i - 1, ArrowDown: i - 1, PageUp: i + page, PageDown: i - page, Home: 0, End: g.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    const L = g[Math.max(0, Math.min(g.length - 1, to))];
    input.value = String(sliderPosition(g, L));
    onLength(L);
  });
  return (L, label) => {
    const p = String(sliderPosition(grid(), L));
    if (input.value !== p) input.value = p;
    input.dataset.length = String(L);
    if (label) input.setAttribute('aria-valuetext', label);
  };
}
