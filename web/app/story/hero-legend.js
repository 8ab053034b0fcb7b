// The hero's legend and the note under its chart (DOM only): a button per encoding (pressed: its map is shown
// beside the chart) with its accuracy at the cursor, and what the drawn points rest on, in words.
import { NAMES } from '../shared/meta.js';
import { pct } from '../shared/results-words.js';
import { sequencesText } from '../lab/evaluations.js';

/** The legend's buttons, one per encoding of `s`; `onPick(enc)` when one is pressed. */
export function buildLegend(legend, s, colour, onPick) {
  legend.replaceChildren();
  for (const enc of s.encodings) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'hero-key';
    b.dataset.encoding = enc;
    b.setAttribute('aria-pressed', String(s.picks.includes(enc)));
    b.title = `show ${NAMES[enc]}'s attention beside the chart`;
    const sw = document.createElement('span');
    sw.className = 'swatch';
    sw.style.background = colour[enc];
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = NAMES[enc];
    const val = document.createElement('span');
    val.className = 'value';
    b.append(sw, name, val);
    b.addEventListener('click', () => onPick(enc));
    legend.append(b);
  }
}

/**
 * A legend button's number: `v`, the evaluation at the cursor (length `L`); while it computes, `prev`, the last one
 * before it, with its length (never a dash where a number was).
 */
export function showLegendValue(legend, enc, v, prev, L) {
  const b = legend.querySelector(`[data-encoding="${enc}"] .value`);
  if (!b) return;
  const shown = v ?? prev;
  b.textContent = shown ? `${pct(shown.accuracy)}%${v ? '' : ` at ${shown.length}`}` : '…';
  b.classList.toggle('live', !!shown?.partial);
  b.classList.toggle('stale', !v && !!prev);
  b.title = shown ? `accuracy at T = ${shown.length}, ${shown.measured ? 'measured' : 'live'} on ${sequencesText(shown.sequences)}${v ? '' : `; T = ${L} is being computed`}`
    : `T = ${L} is being computed`;
}

/** What the points rest on, in words: `shipped`, the shipped count, and the live points' counts where any are drawn. */
export function countsText(shipped, lines) {
  const live = new Set();
  for (const { points } of lines) for (const p of points) if (p.partial) live.add(p.sequences);
  const counts = [...live].sort((a, b) => a - b);
  const shippedWords = shipped ? `Solid lines: the shipped models measured on ${sequencesText(shipped)} a length` : '';
  const liveWords = counts.length ? `${shippedWords ? 'h' : 'H'}ollow rings and dashed lines: computed here on ${counts.length > 1 ? `${counts[0]} to ${sequencesText(counts.at(-1))}` : sequencesText(counts[0])}` : '';
  return [shippedWords, liveWords].filter(Boolean).join('; ') + (shippedWords || liveWords ? '.' : '');
}
