// dist/standalone.html's script: <posenc-explorer> with the wasm and the
// copy-task checkpoints inlined, so the page works from file:// (no fetch, no
// Workers: the sweep runs on the main thread).
import checkpoints from 'posenc-inline:checkpoints';
import { inlineWasm, decodeBase64 } from '../lib/inline-wasm.js';
import { configure } from './posenc-explorer.js';

configure({
  workers: false,
  explorerUrl: null,
  loadOptions: { wasmBinary: inlineWasm() },
  checkpoints: {
    list: async () => Object.keys(checkpoints),
    load: async (file) => (file in checkpoints ? decodeBase64(checkpoints[file]) : null),
  },
});
