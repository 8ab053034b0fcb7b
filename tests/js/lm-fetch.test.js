// Fetching a model's files (web/app/lm/fetch.js) against a fake network (globalThis.fetch replaced for each test):
// progress in bytes with the total, an optional file's 404 as "not there", an index that names shards, a server
// error named in one sentence, and cancel (an AbortSignal) stopping a download half-way.
import { jest } from '@jest/globals';
import { fetchFile, fetchModel } from '../../web/app/lm/fetch.js';
import { fetchPlan } from '../../web/app/lm/sources.js';

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

// A fake server: path -> bytes (sent in `chunk`-byte pieces, `delay` ms apart) or a status number.
function serve(files, { chunk = 4, delay = 0 } = {}) {
  const asked = [];
  globalThis.fetch = jest.fn(async (url, { signal } = {}) => {
    const path = new URL(url, 'https://huggingface.co/').pathname;
    asked.push(path);
    const f = files[path];
    if (f === undefined || typeof f === 'number') return new Response('no', { status: f ?? 404, statusText: f ? 'Server Error' : 'Not Found' });
    let i = 0;
    const body = new ReadableStream({
      async pull(c) {
        if (signal?.aborted) return c.error(new DOMException('aborted', 'AbortError'));
        if (delay) await new Promise((r) => setTimeout(r, delay));
        if (i >= f.length) return c.close();
        c.enqueue(f.subarray(i, i + chunk));
        i += chunk;
      },
    });
    return new Response(body, { headers: { 'content-length': String(f.length) } });
  });
  return asked;
}

const bytes = (n, v = 1) => new Uint8Array(n).fill(v);

test('a file arrives whole, with progress in bytes against its length', async () => {
  serve({ '/m/a.gguf': bytes(10, 7) });
  const seen = [];
  const b = await fetchFile('https://huggingface.co/m/a.gguf', { onProgress: (p) => seen.push([p.file, p.loaded, p.total]) });
  expect(Array.from(b)).toEqual(Array(10).fill(7));
  expect(seen).toEqual([['a.gguf', 4, 10], ['a.gguf', 8, 10], ['a.gguf', 10, 10]]);
});

test('an optional file that is not there is null; a required one, or a server error, is one sentence', async () => {
  serve({ '/m/x.json': 500 });
  expect(await fetchFile('https://huggingface.co/m/tokenizer.json', { optional: true })).toBeNull();
  await expect(fetchFile('https://huggingface.co/m/model.gguf')).rejects.toThrow('model.gguf: the server answered 404 Not Found');
  await expect(fetchFile('https://huggingface.co/m/x.json', { optional: true })).rejects.toThrow('x.json: the server answered 500 Server Error');
});

test('a repository: config and tokenizer, no index so model.safetensors; with an index, the shards it names', async () => {
  const base = '/o/r/resolve/main/';
  let asked = serve({ [`${base}config.json`]: bytes(3), [`${base}tokenizer.json`]: bytes(5), [`${base}model.safetensors`]: bytes(9) });
  let files = await fetchModel(fetchPlan(['https://huggingface.co/o/r']));
  expect(Object.keys(files).sort()).toEqual(['config', 'model', 'tokenizer']);
  expect(asked.map((p) => p.slice(base.length))).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors.index.json', 'model.safetensors']);
  const index = new TextEncoder().encode(JSON.stringify({ weight_map: { a: 'model-1.safetensors', b: 'model-2.safetensors', c: 'model-1.safetensors' } }));
  asked = serve({ [`${base}config.json`]: bytes(3), [`${base}model.safetensors.index.json`]: index, [`${base}model-1.safetensors`]: bytes(4, 1),
    [`${base}model-2.safetensors`]: bytes(4, 2) });
  const progress = [];
  files = await fetchModel(fetchPlan(['https://huggingface.co/o/r']), { onProgress: (p) => progress.push(`${p.file} ${p.done + 1}/${p.count}`) });
  expect(Object.keys(files.shards).sort()).toEqual(['model-1.safetensors', 'model-2.safetensors']);
  expect(Array.from(files.shards['model-2.safetensors'])).toEqual([2, 2, 2, 2]);
  expect(progress.at(-1)).toBe('model-2.safetensors 6/6');
  serve({ [`${base}config.json`]: bytes(3), [`${base}model.safetensors.index.json`]: new TextEncoder().encode('{"weight_map": {"a": "../../etc/x"}}') });
  await expect(fetchModel(fetchPlan(['https://huggingface.co/o/r']))).rejects.toThrow(/weight_map must name the \.safetensors files beside it/);
});

test('cancel stops a download half-way with an AbortError', async () => {
  serve({ '/m/big.gguf': bytes(400) }, { chunk: 10, delay: 5 });
  const abort = new AbortController();
  const seen = [];
  const p = fetchFile('https://huggingface.co/m/big.gguf', { signal: abort.signal, onProgress: (x) => {
    seen.push(x.loaded);
    if (x.loaded >= 100) abort.abort();
  } });
  await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  expect(Math.max(...seen)).toBeLessThan(400);
});

test('the served page may connect only to its own origin, Hugging Face and the download hosts Hugging Face lists', async () => {
  const { CSP, MODEL_HOSTS } = await import('../../scripts/serve.js');
  const connect = CSP.split('; ').find((d) => d.startsWith('connect-src ')).split(' ').slice(1);
  expect(connect).toEqual(["'self'", ...MODEL_HOSTS.map((h) => `https://${h}`)]);
  expect(MODEL_HOSTS).toEqual(expect.arrayContaining(['huggingface.co', 'cas-bridge.xethub.hf.co', 'cdn-lfs.hf.co']));
  expect(MODEL_HOSTS.every((h) => h === 'huggingface.co' || h.endsWith('.hf.co'))).toBe(true);
  expect(connect.some((s) => s.includes('*'))).toBe(false); // named hosts only, no wildcard
});
