// The browser side of `npm run bench`: the same suite as in Node
// (bench/lib/suite.js), on tfjs's UMD bundles and our module from web/wasm.
// bench/run.js opens this page in headless Chromium and polls window.benchResult.
import { runSuite } from './lib/suite.js';

const logEl = document.getElementById('log');
const log = (s) => {
  logEl.textContent += `${s}\n`;
  console.log(`[bench] ${s}`);
};

async function main() {
  const params = new URLSearchParams(location.search);
  const only = params.get('only') ? params.get('only').split(',') : null;
  const { tf } = window;
  tf.wasm.setWasmPaths('/node_modules/@tensorflow/tfjs-backend-wasm/dist/');
  await tf.setBackend('wasm');
  await tf.ready();
  log(`tfjs ${tf.version_core}, backend ${tf.getBackend()}, SIMD ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT')}, threads ${tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT')}`);
  // ?wasm=/path/: another build of ours (bench/run.js --wasm-dir), default web/wasm.
  const base = params.get('wasm') ?? '/web/wasm/';
  const wasm = { read: async (file) => (await fetch(`${base}${file}`)).arrayBuffer(), glue: (file) => import(`${base}${file}`) };
  const result = await runSuite({ wasm, tf, log, only, sweep: params.get('sweep') !== '0' });
  delete result.outputs; // checked here; only Node's are compared with the native build
  result.userAgent = navigator.userAgent;
  result.tfjs = { version: tf.version_core, simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'), threads: tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') };
  window.benchResult = result;
}

main().catch((e) => {
  log(`failed: ${e?.stack ?? e}`);
  window.benchResult = { error: String(e?.stack ?? e) };
});
