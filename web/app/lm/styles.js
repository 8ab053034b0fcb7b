// The styles of "Your model, past its context", one constructed stylesheet adopted by the page and by any
// <posenc-explorer view="model"> shadow root (no inline <style>, which a strict style-src forbids).
export const LM_CSS = `
.lm { --lm-gap: .6rem; }
.lm .lm-row { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center; margin: .5rem 0; }
.lm .lm-suggested { list-style: none; padding: 0; margin: .4rem 0; display: grid; gap: .35rem; }
.lm .lm-suggested li { display: flex; flex-wrap: wrap; gap: .2rem .6rem; align-items: baseline; }
.lm .lm-suggested .what { color: var(--muted); font-size: .85rem; }
.lm .lm-suggested code { font-size: .72rem; color: var(--muted); word-break: break-all; }
.lm .lm-url { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; }
.lm .lm-url input { flex: 1 1 20rem; min-width: 0; font: inherit; padding: .2rem .4rem; }
.lm .lm-drop { border: 2px dashed var(--grid); border-radius: 6px; padding: 1rem; text-align: center; color: var(--muted); margin: .5rem 0; }
.lm .lm-drop.over { border-color: var(--accent); color: var(--fg); }
.lm .lm-drop input[type=file] { position: absolute; width: 1px; height: 1px; opacity: 0; }
.lm .lm-drop label { color: var(--accent); text-decoration: underline; cursor: pointer; }
.lm progress { width: min(20rem, 60%); }
.lm .lm-error { color: var(--past); font-weight: 600; }
.lm .lm-facts { margin: .3rem 0; padding-left: 1.1rem; font-size: .9rem; }
.lm .lm-facts input { width: 7em; font: inherit; }
.lm .lm-flag { color: var(--past); }
.lm .lm-confirm { border: 2px solid var(--past); border-radius: 6px; padding: .5rem .9rem; margin: .6rem 0; max-width: 46rem; }
.lm .lm-confirm p { margin: .3rem 0; font-size: .9rem; }
.lm .lm-confirm input { width: 7em; font: inherit; }
.lm .lm-confirm button { font: inherit; }
.lm canvas { display: block; width: 100%; }
.lm .lm-pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
@media (max-width: 760px) { .lm .lm-pair { grid-template-columns: 1fr; } }
.lm .lm-words { font-size: .9rem; margin: .3rem 0 .8rem; }
.lm textarea { width: 100%; font: inherit; font-size: .85rem; }
.lm input[type=range] { vertical-align: middle; }
.lm .lm-credit { font-size: .75rem; color: var(--muted); }
`;

let sheet = null;
/** Adopts the stylesheet into `root` (a document or a shadow root), once. */
export function adoptLmStyles(root) {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(LM_CSS);
    }
    if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } else if (!root.querySelector?.('style[data-lm]')) {
    const style = document.createElement('style');
    style.dataset.lm = '';
    style.textContent = LM_CSS;
    (root.head ?? root).append(style);
  }
}
