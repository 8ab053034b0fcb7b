// The language model's Worker: core.js over postMessage, so a long forward never blocks the page.
// {type: 'hello'} is answered with {type: 'alive'} (workers.js waits for it).
import { loadPosenc } from '../../lib/index.js';
import { createLmCore } from './core.js';

let api = null;
const handle = createLmCore(() => (api ??= loadPosenc()), (message, transfer) => self.postMessage(message, transfer));
self.onmessage = ({ data }) => (data?.type === 'hello' ? self.postMessage({ type: 'alive' }) : handle(data));
