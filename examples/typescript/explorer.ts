// The <posenc-explorer> element from TypeScript: typed creation, properties,
// querySelector and page-wide settings. Type-checked only (it needs a DOM).
import { configure, PosencExplorer, type SweepPoint } from 'posenc/explorer';
import { loadPosenc } from 'posenc/single';

// Page-wide settings, before the first element scrolls into view.
// Here the .wasm files are served from /static/ (locateFile gets 'posenc-simd.wasm' or 'posenc-scalar.wasm').
configure({ loadOptions: { locateFile: (file) => `/static/${file}` }, workers: 'auto' });

const el = document.createElement('posenc-explorer'); // PosencExplorer, through HTMLElementTagNameMap
el.encodings = ['rope', 'alibi', 'learned'];
el.trainLength = 64;
el.maxLength = 512;
el.view = 'sweep';
el.autoplay = true;
el.ropeScaling = 'yarn';
el.factor = 4;
el.controls = 'none';
document.body.append(el);

const first = document.querySelector('posenc-explorer');
if (first instanceof PosencExplorer) {
  const points: Partial<Record<string, SweepPoint[]>> = first.results();
  const link = `https://example.org/explorer/${first.search}`;
  console.log(Object.keys(points), link, PosencExplorer.observedAttributes.length);
}

// The single-file build has the same API (the wasm is inlined: no URL to configure).
const pe = await loadPosenc({ build: 'auto' });
const scalar = await loadPosenc({ build: 'scalar' }); // the inlined scalar build, e.g. to compare speeds
console.log(scalar.build);
console.log(pe.alibiSlopes(4));
