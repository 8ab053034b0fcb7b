// "Embed this": the current sweep as a <posenc-explorer> tag or an iframe of
// embed.html, for a blog post (as TensorFlow Playground offers its iframe). The README's snippets are made here
// too (scripts/readme-lists.js).
import { toSearch, kebab } from '../shared/state.js';
import { PACKAGE } from '../shared/package-info.js';

/**
 * The published package's dist/ on a public CDN, at this version: jsDelivr's npm address, which sends the CORS
 * headers the element needs on another site (the server that served the page may send none), and which a post keeps
 * pointing at the version it was written with. (jsDelivr serves no HTML pages, so the iframe is not taken from it.)
 */
export const cdnBase = ({ name, version } = PACKAGE) => `https://cdn.jsdelivr.net/npm/${name}@${version}/dist/`;

const escapeAttr = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
// Page-only keys that mean nothing in an embed.
const PAGE_ONLY = new Set(['perf', 'sinDim', 'sinLength', 'ropePos', 'alibiHeads', 'picks', 'step']);

/** The element's attributes for `state`: the keys that differ from the defaults, as in the URL. */
export function embedAttributes(state) {
  const attrs = [];
  for (const [key, value] of new URLSearchParams(toSearch(state))) {
    if (PAGE_ONLY.has(key) || key === 'play') continue;
    attrs.push([kebab(key), value]);
  }
  if (state.play) attrs.push(['autoplay', '']);
  return attrs;
}

/**
 * Snippets for `state`. `base` is the URL of the directory holding embed.html, for the iframe (the site root in
 * development, dist/ in the package); the script comes from `scriptBase`, the package on the CDN by default.
 */
export function embedSnippets(state, base, { controls = true, scriptBase = cdnBase() } = {}) {
  const attrs = embedAttributes(state);
  const tagAttrs = [...attrs, ...(controls ? [] : [['controls', 'none']])]
    .map(([k, v]) => (v === '' ? ` ${k}` : ` ${k}="${escapeAttr(v)}"`)).join('');
  const script = new URL('explorer.js', scriptBase).href;
  const query = new URLSearchParams(attrs.map(([k, v]) => [k, v === '' ? '1' : v]));
  if (!controls) query.set('controls', '0');
  const src = `${new URL('embed.html', base).href}?${query}`;
  // Every row without inner scrolling at 720 and 390 px wide (GIF-like rows: 213-237 px each there, plus the bar,
  // title, legend and foot: tests/browser/embed-fit.test.js measures it); no script in the host page.
  const height = 200 + 240 * state.encodings.length;
  return {
    component: `<script type="module" src="${escapeAttr(script)}"></script>\n<posenc-explorer${tagAttrs}></posenc-explorer>`,
    iframe: `<iframe src="${escapeAttr(src)}" width="100%" height="${height}" style="border:0" loading="lazy" title="posenc explorer"></iframe>`,
  };
}
