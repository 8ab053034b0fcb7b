// The length sweep's Worker: the handler of sweep-core.js over postMessage.
// Protocol: see sweep-core.js.
import { loadPosenc } from '../lib/index.js';
import { createSweepCore } from './sweep-core.js';

const handle = createSweepCore(loadPosenc(), (message, transfer) => self.postMessage(message, transfer));
self.onmessage = ({ data }) => handle(data);
