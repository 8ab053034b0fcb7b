// embed.html?encodings=rope,alibi&train-length=32&max-length=256&autoplay=1&controls=0
// One <posenc-explorer> filling an iframe. Every query parameter becomes an
// attribute (camelCase or kebab-case names, as in the explorer's URL); the
// element validates them. `controls=0` hides the controls.
import './component/posenc-explorer.js';
import { configure } from './component/engine.js';
import { kebab } from './app/shared/state.js';

// The full explorer is next to this page (dist/app/, web/app/): the "open in the explorer" link goes there.
configure({ explorerUrl: new URL('app/', document.baseURI).href });

const el = document.createElement('posenc-explorer');
for (const [key, value] of new URLSearchParams(location.search)) {
  const name = kebab(key);
  if (!/^[a-z][a-z-]{0,31}$/.test(name)) continue; // only attribute-shaped names
  if (name === 'autoplay' || name === 'compact') {
    if (value !== '0' && value !== 'false') el.setAttribute(name, '');
  } else el.setAttribute(name, value);
}
const main = document.createElement('main'); // (one landmark holding the element)
main.append(el);
document.body.append(main);
