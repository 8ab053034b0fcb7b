// The length sweep's Worker: the handler of sweep-core.js over postMessage.
// Protocol: see sweep-core.js, plus {type: 'load', options} first if the page
// shares its compiled module (loadPosenc options, e.g. {wasmModule, build}),
// and {type: 'hello'}, answered with {type: 'alive'} (workers.js waits for it).
import { loadPosenc } from '../../lib/index.js';
import { createSweepCore } from './sweep-core.js';

let api = null;
const load = (options = {}) => (api ??= loadPosenc(options));
const handle = createSweepCore(() => load(), (message, transfer) => self.postMessage(message, transfer));
self.onmessage = ({ data }) => {
  if (data.type === 'hello') self.postMessage({ type: 'alive' });
  else if (data.type === 'load') load(data.options);
  else handle(data);
};
