// Export any view as PNG (its canvases composed as laid out), SVG (the same
// canvases as embedded images, with the section title as text) or JSON (the
// numbers behind it).
const FORMATS = ['png', 'svg', 'json'];

function visibleCanvases(section) {
  return [...section.querySelectorAll('canvas')].filter((c) => c.width > 1 && c.getClientRects().length);
}

function layout(section) {
  const canvases = visibleCanvases(section);
  if (!canvases.length) return null;
  const rects = canvases.map((c) => c.getBoundingClientRect());
  const x0 = Math.min(...rects.map((r) => r.left)), y0 = Math.min(...rects.map((r) => r.top));
  const w = Math.ceil(Math.max(...rects.map((r) => r.right)) - x0), h = Math.ceil(Math.max(...rects.map((r) => r.bottom)) - y0);
  return { w, h, items: canvases.map((c, i) => ({ c, x: rects[i].left - x0, y: rects[i].top - y0, w: rects[i].width, h: rects[i].height })) };
}

export function composePng(section) {
  const l = layout(section);
  if (!l) return null;
  const out = document.createElement('canvas');
  const scale = 2;
  out.width = l.w * scale;
  out.height = l.h * scale;
  const ctx = out.getContext('2d');
  ctx.fillStyle = getComputedStyle(document.body).backgroundColor;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.scale(scale, scale);
  for (const it of l.items) ctx.drawImage(it.c, it.x, it.y, it.w, it.h);
  return out;
}

export function composeSvg(section) {
  const l = layout(section);
  const title = section.querySelector('h2')?.textContent ?? section.id;
  const esc = (s) => s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);
  const w = l?.w ?? 400, h = (l?.h ?? 0) + 24;
  const images = (l?.items ?? []).map((it) =>
    `<image x="${it.x.toFixed(1)}" y="${(it.y + 24).toFixed(1)}" width="${it.w.toFixed(1)}" height="${it.h.toFixed(1)}" href="${it.c.toDataURL('image/png')}"/>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<title>${esc(title)}</title><text x="0" y="16" font-family="system-ui, sans-serif" font-size="14">${esc(title)}</text>${images.join('')}</svg>`;
}

function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/** The exported file for a view, as {name, blob}. */
export async function exportView(section, format, data) {
  const name = `posenc-${section.id}.${format}`;
  if (format === 'json') return { name, blob: new Blob([JSON.stringify(data(), null, 1)], { type: 'application/json' }) };
  if (format === 'svg') return { name, blob: new Blob([composeSvg(section)], { type: 'image/svg+xml' }) };
  const canvas = composePng(section);
  if (!canvas) return { name, blob: new Blob([], { type: 'image/png' }) };
  return { name, blob: await new Promise((r) => canvas.toBlob(r, 'image/png')) };
}

const LABELS = { webm: 'WebM' };

/**
 * Adds PNG / SVG / JSON buttons to every `.export[data-view]` span. `custom[view][format](span)` replaces a format's
 * export or adds one (the sweep's labelled stills, GIF and WebM); it resolves to {name, blob}, or null for no file.
 */
export function attachExports(dataFor, custom = {}) {
  for (const span of document.querySelectorAll('.export[data-view]')) {
    const section = document.getElementById(span.dataset.view);
    const own = custom[span.dataset.view] ?? {};
    for (const format of new Set([...FORMATS, ...Object.keys(own)])) {
      const label = LABELS[format] ?? format.toUpperCase();
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = label;
      b.dataset.format = format;
      b.setAttribute('aria-label', `export ${section.querySelector('h2')?.textContent ?? span.dataset.view} as ${label}`);
      b.addEventListener('click', async () => {
        const file = await (own[format] ? own[format](span) : exportView(section, format, () => dataFor(span.dataset.view)));
        if (file) download(file.name, file.blob);
      });
      span.append(b);
    }
  }
}
