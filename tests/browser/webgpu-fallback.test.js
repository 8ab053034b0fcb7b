// Where the browser gives no WebGPU adapter, the language model's forwards fall back to wasm cleanly: in Firefox and
// WebKit (as installed here) and in Chromium without WebGPU, the model's handler (the one its Worker runs) loads
// stories260K, says in its facts that the forwards run on the CPU and why, and runs a forward there ('wasm'), with no
// page error. (Chromium with WebGPU, where they run on the GPU: webgpu.test.js.)
import { jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useEngine, ENGINES } from './harness.js';

jest.setTimeout(600000);
const MODELS = fileURLToPath(new URL('../../../shared/models/', import.meta.url));
const have = existsSync(join(MODELS, 'stories260K/stories260K.bin'));
if (!have) console.log('skipped (no ../shared/models/stories260K here): the GPU forward\'s fallback to wasm');

(have ? describe.each(ENGINES) : describe.skip.each(ENGINES))('%s', (engine) => {
  const env = useEngine(engine, { mounts: { '/test-models/': MODELS } });
  test('no WebGPU adapter: the forwards run in wasm, and the model\'s facts say why', async () => {
    const page = await env.newPage();
    await page.goto(`${env.url}/app/blank.html`);
    const r = await page.evaluate(async () => {
      const { loadPosenc } = await import('/lib/index.js');
      const { createLmCore } = await import('/app/lm/core.js');
      const answers = [];
      const handle = createLmCore(() => loadPosenc(), (m) => answers.push(m));
      const model = new Uint8Array(await (await fetch('/test-models/stories260K/stories260K.bin')).arrayBuffer());
      await handle({ type: 'load', id: 1, files: { model } });
      await handle({ type: 'stream', id: 2, tokens: Int32Array.from({ length: 40 }, (_, i) => (i * 37) % 512), context: 512, scaling: null, stats: false });
      const nll = answers.filter((a) => a.type === 'chunk' && a.id === 2).flatMap((a) => Array.from(a.nll)); // the stream's chunks
      const done = answers.find((a) => a.type === 'forward' && a.id === 2);
      const adapter = await globalThis.navigator.gpu?.requestAdapter().catch(() => null);
      return { hasGpu: Boolean(globalThis.navigator.gpu), adapter: Boolean(adapter), engine: answers[0].info?.engine, error: answers.find((a) => a.type === 'error')?.message ?? null,
        ran: done?.ran, n: nll.length, finite: nll.every(Number.isFinite) };
    });
    console.log(`${engine} ${env.version}: navigator.gpu ${r.hasGpu ? 'present' : 'absent'}, adapter ${r.adapter ? 'given' : 'none'}; engine ${JSON.stringify(r.engine)}`);
    expect(r.error).toBeNull();
    expect(r.adapter).toBe(false);
    expect(r.engine.gpu).toBeNull();
    expect(r.engine.reason).toBe(r.hasGpu ? 'WebGPU gave no adapter here' : 'this browser has no WebGPU');
    expect([r.ran, r.n, r.finite]).toEqual(['wasm', 39, true]);
    expect(await page.errors()).toEqual([]);
  });
});
