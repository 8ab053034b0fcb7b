// The memory a 0.5B model takes in each weight format: Qwen2.5-0.5B's published shapes (tests/lm/dequant.py shapes:
// random blocks, every matrix in the format, or llama.cpp's Q4_K_M mix), loaded in the language models' wasm module
// in Node. Per format: the file's size, the weights the model keeps (lm.config.weightBytes) and the module's heap
// growth while it is loaded (the file is read where it lies, so the heap grows by about the file).
//
//   node bench/quant_memory.js [--formats Q4_K_M,Q8_0,...]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPosenc } from '../web/lib/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const formats = argv.includes('--formats') ? argv[argv.indexOf('--formats') + 1].split(',')
  : ['F16', 'Q8_0', 'Q6_K', 'Q5_1', 'Q5_0', 'Q5_K', 'Q4_1', 'Q4_0', 'Q4_K', 'Q3_K', 'Q2_K', 'Q4_K_M'];
const pe = await loadPosenc();
const dir = mkdtempSync(join(tmpdir(), 'posenc-quant-memory-'));
const gb = (x) => (x / 1e9).toFixed(3);
try {
  for (const f of formats) {
    const file = join(dir, 'm.gguf');
    execFileSync('/usr/bin/python3', [join(root, 'tests/lm/dequant.py'), 'shapes', file, join(dir, 'm.txt'), '--shape', 'qwen2.5-0.5b', '--type', f]);
    const bytes = new Uint8Array(readFileSync(file));
    rmSync(file);
    const before = pe.heapBytes();
    const lm = await pe.loadLanguageModel({ model: bytes });
    const nll = lm.forward(Int32Array.from([1, 20, 300, 4000])).nll;
    const heap = pe.heapBytes() - before;
    const types = readFileSync(join(dir, 'm.txt'), 'utf8').trim().replace(/^params /, '');
    console.log(JSON.stringify({ format: f, params: lm.config.parameters, fileGB: +gb(bytes.length), weightsGB: +gb(lm.config.weightBytes),
      heapGrowthGB: +gb(heap), finite: nll.every(Number.isFinite), types }));
    lm.delete();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
