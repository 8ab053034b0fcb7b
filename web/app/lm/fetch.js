// Fetching a model's files in the reader's browser (sources.js says which): streamed with progress in bytes,
// cancellable (an AbortSignal), and kept in the browser's Cache API so a second visit reads them locally.
// Nothing is uploaded: these are GET requests to the addresses given, nothing more.

const CACHE = 'posenc-models-v1';

// A cache operation that has not settled within `ms` is given up (the download goes on without the cache).
const settleWithin = (promise, ms = 3000) => Promise.race([promise.catch(() => null), new Promise((r) => setTimeout(() => r(null), ms))]);

const openCache = async () => {
  if (!globalThis.caches) return null; // (only in secure contexts: https and localhost)
  return settleWithin(caches.open(CACHE)); // null: storage refused (private mode, quota): fetch without it
};

const label = (u) => decodeURIComponent(new URL(u, globalThis.location?.href ?? 'https://x.invalid/').pathname.split('/').pop());

/** The body of `res` as bytes, reporting each chunk's size to `onBytes`. */
async function readBody(res, onBytes, signal) {
  if (!res.body?.getReader) {
    const b = new Uint8Array(await res.arrayBuffer());
    onBytes(b.length);
    return b;
  }
  const reader = res.body.getReader();
  const chunks = [];
  let n = 0;
  for (;;) {
    if (signal?.aborted) {
      reader.cancel().catch(() => {});
      throw signal.reason ?? new DOMException('cancelled', 'AbortError');
    }
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    n += value.length;
    onBytes(value.length);
  }
  const out = new Uint8Array(n);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/**
 * Fetches one file: its bytes, or null when `optional` and the server has no such file (404). Reports
 * onProgress({file, loaded, total}) as it goes (total null when the server gives no length).
 */
export async function fetchFile(url, { signal, optional = false, onProgress = () => {}, cache = null } = {}) {
  const hit = cache && await settleWithin(cache.match(url));
  if (hit) {
    const b = new Uint8Array(await hit.arrayBuffer());
    onProgress({ file: label(url), loaded: b.length, total: b.length, cached: true });
    return b;
  }
  let res;
  try {
    res = await fetch(url, { signal, mode: 'cors', credentials: 'omit' });
  } catch (e) {
    if (e?.name === 'AbortError') throw e;
    throw new Error(`${label(url)} could not be fetched (the network, or a server that does not allow this page to read it): ${e.message}`);
  }
  if (res.status === 404 && optional) return null;
  if (!res.ok) throw new Error(`${label(url)}: the server answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`);
  const total = Number(res.headers.get('content-length')) || null;
  let loaded = 0;
  const bytes = await readBody(res, (n) => {
    loaded += n;
    onProgress({ file: label(url), loaded, total });
  }, signal);
  if (cache) await settleWithin(cache.put(url, new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } })), 10000);
  return bytes;
}

/**
 * The files of `plan` (sources.js fetchPlan) as loadLanguageModel's files object, shards included when an
 * index names them. onProgress({file, loaded, total, done, count}): the current file and how many are done.
 */
export async function fetchModel(plan, { signal, onProgress = () => {} } = {}) {
  const cache = await openCache();
  const files = {};
  const queue = [...plan];
  let done = 0;
  const progress = (p) => onProgress({ ...p, done, count: done + queue.length + 1 });
  while (queue.length) {
    const item = queue.shift();
    const bytes = await fetchFile(item.url, { signal, optional: item.optional || !!item.orElse, onProgress: progress, cache });
    done++;
    if (bytes === null) {
      if (item.orElse) queue.push(item.orElse);
      continue;
    }
    if (item.role === 'shard') (files.shards ??= {})[item.name] = bytes;
    else files[item.role] = bytes;
    if (item.role === 'index') {
      let names;
      try {
        names = [...new Set(Object.values(JSON.parse(new TextDecoder().decode(bytes)).weight_map ?? {}))];
      } catch (e) {
        throw new RangeError(`${label(item.url)} is not a safetensors index (${e.message})`);
      }
      if (!names.length || names.some((n) => typeof n !== 'string' || !/^[\w.-]+\.safetensors$/.test(n)))
        throw new RangeError(`${label(item.url)}: its weight_map must name the .safetensors files beside it`);
      for (const name of names) queue.push({ role: 'shard', name, url: new URL(name, new URL(item.url, globalThis.location?.href)).href });
    }
  }
  return files;
}

/** Reads dropped or picked File objects (sources.js classifyFiles) into loadLanguageModel's files object. */
export async function readDropped({ roles, shards }) {
  const files = {};
  for (const [role, f] of Object.entries(roles)) files[role] = new Uint8Array(await f.arrayBuffer());
  if (shards.length) {
    files.shards = {};
    for (const f of shards) files.shards[f.name] = new Uint8Array(await f.arrayBuffer());
  }
  return files;
}
