// The sweep section's export buttons on the page: labelled still frames (PNG,
// SVG) at the current length and the animation (GIF, and WebM where this
// browser can record it), with a progress bar and Cancel while they work.
// Plugs into export.js's attachExports(dataFor, {sweep: handlers}).
import { webmSupported, webmUnsupportedReason } from './animate-export.js';

const WHAT = { png: 'PNG', svg: 'SVG', gif: 'GIF', webm: 'WebM' };

function describe(p, format) {
  if (p.phase === 'models') {
    return `waiting for training to finish (${p.waiting.map((w) => `${w.encoding}${w.steps ? ` ${w.step}/${w.steps}` : ` ${w.status}`}`).join(', ')})`;
  }
  if (p.phase === 'compute') return `computing length ${p.done} of ${p.total}`;
  if (p.phase === 'record') return `recording ${WHAT[format]} frame ${p.done} of ${p.total}`;
  return `encoding ${WHAT[format]}${p.total > 1 ? ` frame ${p.done} of ${p.total}` : ''}`;
}

/** A progress bar, a status line and a Cancel button, made once inside the export span. */
function progressUi(span, onCancel) {
  let box = span.querySelector('.export-progress');
  if (!box) {
    box = document.createElement('span');
    box.className = 'export-progress';
    box.innerHTML = '<progress max="1" value="0" aria-label="export progress"></progress> <span role="status"></span> ' +
      '<button type="button" class="cancel">Cancel</button>';
    span.append(box);
  }
  const bar = box.querySelector('progress'), text = box.querySelector('[role=status]'), cancel = box.querySelector('.cancel');
  const buttons = [...span.querySelectorAll('button[data-format]')];
  cancel.onclick = onCancel;
  box.hidden = false;
  bar.hidden = cancel.hidden = false;
  bar.value = 0;
  buttons.forEach((b) => (b.disabled = true));
  return {
    update(p, format) {
      bar.value = p.fraction;
      text.textContent = describe(p, format);
    },
    end(message = '') {
      buttons.forEach((b) => (b.disabled = false));
      bar.hidden = cancel.hidden = true;
      text.textContent = message;
      box.hidden = !message;
    },
  };
}

/** attachExports handlers for the sweep: {png, svg, gif, webm?}, each (span) => Promise<{name, blob} | null>. */
export function sweepExportHandlers(exporter) {
  let running = null;
  const handler = (format) => async (span) => {
    if (running) return null;
    running = new AbortController();
    const ui = progressUi(span, () => running?.abort());
    try {
      const file = await exporter.run(format, {}, (p) => ui.update(p, format), running.signal);
      ui.end();
      return file;
    } catch (e) {
      ui.end(e?.name === 'AbortError' ? 'export cancelled' : `export failed: ${e?.message ?? e}`);
      return null;
    } finally {
      running = null;
    }
  };
  const formats = ['png', 'svg', 'gif', ...(webmSupported() ? ['webm'] : [])];
  return Object.fromEntries(formats.map((f) => [f, handler(f)]));
}

/** Says in the export span why a format is not offered here (WebM where MediaRecorder cannot record it). */
export function explainMissingFormats(span) {
  const reason = webmUnsupportedReason();
  if (!reason || !span || span.querySelector('.export-note')) return;
  const note = document.createElement('small');
  note.className = 'export-note';
  note.textContent = `No WebM: ${reason}. GIF works.`;
  span.append(note);
}
