// The length sweep's Worker: the handler of sweep-core.js over postMessage.
// Protocol: see sweep-core.js, plus {type: 'load', options} first if the page
// shares its compiled module (loadPosenc options, e.g. {wasmModule, build}).
import { loadPosenc } from '../lib/index.js';
import { createSweepCore } from './sweep-core.js';

let api = null;
const load = (options = {}) => (api ??= loadPosenc(options));
const handle = createSweepCore(() => load(), (message, transfer) => self.postMessage(message, transfer));
self.onmessage = ({ data }) => (data.type === 'load' ? load(data.options) : handle(data));
