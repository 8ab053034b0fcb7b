import { loadPosenc } from '../lib/index.js';
import { readState, writeState } from './state.js';
import { drawSinusoid } from './views/sinusoid.js';
import { drawClocks, drawOffsetCurve } from './views/rope.js';
import { drawAlibi } from './views/alibi.js';
import { drawT5 } from './views/t5.js';

const $ = (sel) => document.querySelector(sel);
const state = readState();

function render(pe) {
  drawSinusoid(pe, $('#sinusoid'), state);
  drawClocks(pe, $('#rope canvas.clocks'), state.ropePos);
  drawAlibi(pe, $('#alibi .grid'), state.alibiHeads);
}

async function main() {
  let pe;
  try {
    pe = await loadPosenc();
  } catch (e) {
    $('#status').textContent = `Could not load the WebAssembly module: ${e.message}`;
    $('#status').classList.add('error');
    return;
  }
  $('#status').textContent = '';
  $('#build').textContent = `wasm build: ${pe.build} (${pe.simdArch})`;
  for (const input of document.querySelectorAll('input[type=range]')) {
    const out = input.parentElement.querySelector('output');
    input.value = state[input.name];
    out.value = input.value;
    input.addEventListener('input', () => {
      state[input.name] = Number(input.value);
      out.value = input.value;
      writeState(state);
      render(pe);
    });
  }
  render(pe);
  drawOffsetCurve(pe, $('#rope canvas.offset'));
  drawT5(pe, $('#t5 canvas'));
  document.body.dataset.ready = 'true';
}

main();
