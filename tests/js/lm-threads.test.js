// The language models' module on threads, in Node (where it is always the threaded build): a forward on two
// threads gives the same bits as on one, for random float32 and bfloat16 models and for stories260K, at a length
// that is no multiple of the work split; the thread count is checked like any argument.
import { loadPosenc } from '../../web/lib/index.js';
import { tinyModel, tinyFiles, bf16Llama, familyFiles } from './lm-tiny.js';
import { mulberry32 } from './reference.js';
import { readShared, sharedTest } from './lm-fixtures.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const bytes = (f) => new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
const ids = (T, vocab) => Int32Array.from({ length: T }, (_, i) => (i * 7919 + 13) % vocab);

/** NLL (and the statistics) on 1 and on 2 threads, as bytes. */
function oneAndTwo(lm, tokens) {
  const out = [];
  for (const n of [1, 2]) {
    lm.threads = n;
    const r = lm.forward(tokens, { stats: true });
    out.push([bytes(r.nll), bytes(r.entropy), bytes(r.sink)]);
  }
  return out;
}

function expectSameBits(lm, tokens) {
  if (lm.threadsMax < 2) {
    console.log(`skipped: this machine gives the module ${lm.threadsMax} thread`);
    return;
  }
  const [one, two] = oneAndTwo(lm, tokens);
  for (let i = 0; i < 3; i++) expect(Buffer.compare(Buffer.from(one[i]), Buffer.from(two[i]))).toBe(0);
}

test('Node runs the threaded module, on the cores by default', async () => {
  const lm = await pe.loadLanguageModel(tinyFiles(tinyModel({ seed: 1, dim: 32, layers: 1, heads: 2, kvHeads: 1, headDim: 16, hidden: 64, vocab: 64, tied: true, partial: 1, theta: 1e4 })));
  try {
    expect(lm.threadsUnavailable).toBeNull();
    expect(lm.threads).toBe(Math.min(lm.threadsMax, Math.max(1, (await import('node:os')).cpus().length)));
    for (const bad of [0, lm.threadsMax + 1, 1.5, '2'])
      expect(() => { lm.threads = bad; }).toThrow(typeof bad === 'string' ? TypeError : RangeError);
    expect(() => { lm.threads = 0; }).toThrow(/threads/);
  } finally {
    lm.delete();
  }
});

test('a float32 model: two threads give the bits of one', async () => {
  const p = tinyModel({ seed: 5, dim: 64, layers: 2, heads: 4, kvHeads: 2, headDim: 16, hidden: 128, vocab: 600, tied: false, partial: 1, theta: 1e4 });
  const lm = await pe.loadLanguageModel(tinyFiles(p));
  try {
    expectSameBits(lm, ids(301, 600));
  } finally {
    lm.delete();
  }
});

test('a bfloat16 model: two threads give the bits of one', async () => {
  const rnd = mulberry32(9);
  const fill = (file, begin) => { // bfloat16 of magnitude 2^-6 .. 2^-1 (norms too: any finite weights do)
    for (let i = begin; i + 1 < file.length; i += 2) {
      file[i] = Math.floor(rnd() * 256);
      file[i + 1] = (rnd() < 0.5 ? 0x80 : 0) | (0x3c + Math.floor(rnd() * 3)) ;
    }
  };
  const { file, config } = bf16Llama({ dim: 128, vocab: 700, heads: 4, fill });
  const lm = await pe.loadLanguageModel({ model: file, config });
  try {
    expectSameBits(lm, ids(333, 700));
  } finally {
    lm.delete();
  }
});

// The families whose layers add norms after attention and the MLP (OLMo 2, Gemma 3, which also runs GeGLU and
// windowed layers) or norm q and k (Qwen3): at 301 rows the MLP's row blocks are the work items on two threads.
test.each([['olmo2', {}], ['gemma3_text', { sliding_window: 40, sliding_window_pattern: 2 }], ['qwen3', {}]])(
  'a tiny %s model: two threads give the bits of one', async (family, config) => {
    const { model, config: c } = familyFiles({ family, seed: 31, dim: 32, layers: 2, heads: 4, kvHeads: 2, headDim: 8, hidden: 48, vocab: 41,
      tied: family === 'gemma3_text', config });
    const lm = await pe.loadLanguageModel({ model, config: c });
    try {
      expectSameBits(lm, ids(301, 41));
    } finally {
      lm.delete();
    }
  });

sharedTest('stories260K: two threads give the bits of one', async () => {
  const lm = await pe.loadLanguageModel({ model: readShared('stories260K.bin'), tokenizer: readShared('tok512.bin') });
  try {
    expectSameBits(lm, ids(777, 512));
  } finally {
    lm.delete();
  }
}, 60000);

sharedTest('npm run model --threads: the same losses on 1 and 2 threads; a bad count exits 2 with one line', async () => {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const S = (f) => fileURLToPath(new URL(`../../../shared/models/stories260K/${f}`, import.meta.url));
  const run = (...args) => spawnSync(process.execPath, [`${root}scripts/model.js`, '--model', S('stories260K.bin'), '--tokenizer', S('tok512.bin'),
    '--text', `${root}web/app/lm/passage.txt`, '--length', '700', ...args], { encoding: 'utf8' });
  const [one, two] = [run('--threads', '1', '--json'), run('--threads', '2', '--json')];
  expect([one.status, two.status]).toEqual([0, 0]);
  expect(JSON.parse(two.stdout).nll).toEqual(JSON.parse(one.stdout).nll);
  expect(run('--threads', '1').stdout).toMatch(/; 1 thread\n/);
  for (const [bad, re] of [['0', /^npm run model: --threads must be a whole number of at least 1 \(got "0"\)\n$/],
    ['two', /^npm run model: --threads must be a whole number of at least 1 \(got "two"\)\n$/],
    ['100000', /^npm run model: --threads must be a whole number in \[1, \d+\] here \(got 100000\)\n$/]]) {
    const r = run('--threads', bad);
    expect([r.status, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(re);
  }
}, 120000);
