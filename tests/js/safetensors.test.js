// The safetensors readers (web/lib/safetensors.js) on files the test writes itself: valid ones read back
// exactly, each kind of hostile file gets its named error, and a seeded property-based fuzz of mutated
// files keeps the contract: a one-line TypeError/RangeError, or tensors that lie inside the file and cover
// its data exactly. POSENC_FUZZ_SEED=random explores a new sequence (the seed is in the test's name).
import { parseSafetensorsHeader, parseSafetensorsIndex, MAX_HEADER_BYTES } from '../../web/lib/safetensors.js';
import { mulberry32 } from './reference.js';

const SIZE = { F32: 4, F16: 2, BF16: 2, I64: 8, U8: 1 };

/** A .safetensors file: tensors [{name, dtype, shape}] laid out in order, header padded to 8 bytes. */
function writeFile(tensors, { metadata, pad = true, header: override } = {}) {
  const header = {};
  if (metadata) header.__metadata__ = metadata;
  let at = 0;
  for (const t of tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1) * SIZE[t.dtype];
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + n] };
    at += n;
  }
  let text = JSON.stringify(override ?? header);
  if (pad) text += ' '.repeat((8 - (text.length % 8)) % 8);
  const json = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + json.length + at);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  for (let i = 8 + json.length; i < out.length; i++) out[i] = i % 251;
  return out;
}
const withHeader = (header, dataBytes) => {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + dataBytes);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  return out;
};

const LLAMA = [
  { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [32, 8] },
  { name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'F32', shape: [8, 8] },
  { name: 'model.layers.0.self_attn.q_proj.bias', dtype: 'F16', shape: [8] },
  { name: 'model.norm.weight', dtype: 'F32', shape: [8] },
];

test('a valid file reads back: names, dtypes, shapes, offsets from the file start, metadata', () => {
  const file = writeFile(LLAMA, { metadata: { format: 'pt' } });
  const h = parseSafetensorsHeader(file);
  expect(h.metadata).toEqual({ format: 'pt' });
  expect(h.tensors.map((t) => [t.name, t.dtype, t.shape, t.byteLength])).toEqual(LLAMA.map((t) => [t.name, t.dtype, t.shape,
    t.shape.reduce((a, b) => a * b, 1) * SIZE[t.dtype]]));
  expect(h.tensors[0].offset).toBe(h.dataOffset);
  expect(h.dataOffset % 8).toBe(0);
  const last = h.tensors.at(-1);
  expect(last.offset + last.byteLength).toBe(file.length);
  // only the header given, with the whole size: the same
  expect(parseSafetensorsHeader(file.subarray(0, h.dataOffset), { fileSize: file.length })).toEqual(h);
  // an ArrayBuffer, and a view into a larger buffer
  expect(parseSafetensorsHeader(file.slice().buffer)).toEqual(h);
  const big = new Uint8Array(file.length + 10);
  big.set(file, 5);
  expect(parseSafetensorsHeader(big.subarray(5, 5 + file.length))).toEqual(h);
  // zero-size tensors and scalars are legal
  expect(parseSafetensorsHeader(writeFile([{ name: 'e', dtype: 'F32', shape: [0, 4] }, { name: 's', dtype: 'F32', shape: [] }])).tensors
    .map((t) => t.byteLength)).toEqual([0, 4]);
});

test('hostile files get a TypeError or RangeError that names the file, the tensor and the problem', () => {
  const ok = writeFile(LLAMA);
  const n = Number(new DataView(ok.buffer).getBigUint64(0, true));
  const setLen = (b, v) => { const c = b.slice(); new DataView(c.buffer).setBigUint64(0, v, true); return c; };
  const cases = [
    [new Uint8Array(5), RangeError, /has 5 bytes, fewer than the 8/],
    [setLen(ok, 2n ** 63n), RangeError, /header length 9223372036854775808 is not in \[2, /],
    [setLen(ok, BigInt(MAX_HEADER_BYTES) + 1n), RangeError, /is not in \[2, 104857600\] bytes/],
    [ok.subarray(0, 8 + n - 1), RangeError, new RegExp(`is truncated: its header needs ${n} bytes after the first 8, and ${n - 1} are present`)],
    [ok.subarray(0, ok.length - 1), RangeError, /tensor "model.norm.weight" ends at data byte \d+, past the \d+ bytes of data \(a truncated file\?\)/],
    [withHeader([1, 2], 0), TypeError, /header must be a JSON object/],
    [withHeader({ a: { dtype: 'Q4', shape: [1], data_offsets: [0, 1] } }, 1), RangeError, /tensor "a" has dtype "Q4", which safetensors does not define/],
    [withHeader({ a: { dtype: 'F32', shape: [2, -1], data_offsets: [0, 8] } }, 8), RangeError, /tensor "a": shape must be a list of at most 8 non-negative integers/],
    [withHeader({ a: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, 8), RangeError, /tensor "a": shape \[3\] of F32 needs 12 bytes, and data_offsets give 8/],
    [withHeader({ a: { dtype: 'F32', shape: [2 ** 40, 2 ** 40, 2 ** 40], data_offsets: [0, 8] } }, 8), RangeError, /needs more than the file holds/],
    [withHeader({ a: { dtype: 'F32', shape: [2], data_offsets: [8, 0] } }, 8), RangeError, /data_offsets must be \[begin, end\] with 0 <= begin <= end/],
    [withHeader({ a: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, 8), RangeError, /tensor "a" starts at data byte 4, where a hole of 4 bytes begins/],
    [withHeader({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, 8), RangeError, /starts at data byte 4, where an overlap begins/],
    [withHeader({ a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, 8), RangeError, /the tensors cover 4 bytes of data and the file has 8/],
    [withHeader({ __metadata__: { n: 1 } }, 0), TypeError, /__metadata__ must map names to strings/],
    [withHeader({ a: 'x' }, 0), TypeError, /tensor "a" must be \{dtype, shape, data_offsets\}/],
    [(() => { const b = withHeader({ a: { dtype: 'U8', shape: [0], data_offsets: [0, 0] } }, 0); b[9] = 0xff; return b; })(), RangeError, /the header is not UTF-8 text/],
    [new TextEncoder().encode('\x10\0\0\0\0\0\0\0{"__proto__":{}}'), RangeError, /__proto__/],
    ['not bytes', TypeError, /must be a Uint8Array or an ArrayBuffer/],
  ];
  for (const [bytes, type, message] of cases) {
    let err;
    try {
      parseSafetensorsHeader(bytes, { name: 'm.safetensors' });
    } catch (e) {
      err = e;
    }
    expect([message.source, err?.constructor]).toEqual([message.source, type]);
    expect(err.message).toMatch(message);
    expect(err.message).toMatch(/^m\.safetensors/);
    expect(err.message).not.toMatch(/\n/);
  }
});

test('the index of a sharded model: shards in order of first use, bad shard names refused', () => {
  const idx = { metadata: { total_size: 1234 }, weight_map: { a: 'model-00001-of-00002.safetensors', b: 'model-00002-of-00002.safetensors', c: 'model-00001-of-00002.safetensors' } };
  const r = parseSafetensorsIndex(JSON.stringify(idx));
  expect(r.files).toEqual(['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
  expect(r.weightMap.get('c')).toBe('model-00001-of-00002.safetensors');
  expect(r.totalSize).toBe(1234);
  for (const [bad, re] of [
    [{ weight_map: { a: '../etc/passwd.safetensors' } }, /must be a shard file name ending in .safetensors, with no path/],
    [{ weight_map: { a: 'https://x/y.safetensors' } }, /with no path/],
    [{ weight_map: {} }, /weight_map is empty/],
    [{ weight_map: [] }, /weight_map must map tensor names to shard files/],
    [{ weight_map: { a: 'm.safetensors' }, metadata: { total_size: -1 } }, /total_size must be a non-negative integer/],
  ]) expect(() => parseSafetensorsIndex(bad)).toThrow(re);
  expect(() => parseSafetensorsIndex('{"weight_map":')).toThrow(/not valid JSON/);
});

const SEED = process.env.POSENC_FUZZ_SEED === 'random' ? (Math.random() * 2 ** 32) >>> 0 : Number(process.env.POSENC_FUZZ_SEED ?? 0x5afe);
test(`4000 mutated files: a one-line TypeError/RangeError, or tensors inside the file covering its data (seed ${SEED})`, () => {
  const rnd = mulberry32(SEED);
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const dtypes = Object.keys(SIZE);
  const tally = { ok: 0, refused: 0 };
  for (let i = 0; i < 4000; i++) {
    const tensors = Array.from({ length: int(1, 5) }, (_, k) => ({ name: `t${k}`, dtype: dtypes[int(0, dtypes.length - 1)],
      shape: Array.from({ length: int(0, 3) }, () => int(0, 5)) }));
    let b = writeFile(tensors, { pad: rnd() < 0.5 });
    const n = Number(new DataView(b.buffer).getBigUint64(0, true));
    for (let m = int(0, 3); m > 0; m--) {
      const what = int(0, 4);
      if (what === 0) b = b.subarray(0, int(0, b.length)); // truncate
      else if (what === 1 && b.length >= 8) { b = b.slice(); new DataView(b.buffer).setBigUint64(0, BigInt(int(0, n + 64)), true); } // lying header length
      else if (what === 2 && b.length > 8) { b = b.slice(); b[int(8, Math.min(b.length - 1, 8 + n))] = int(0, 255); } // a header byte
      else if (what === 3 && b.length > 8) { b = b.slice(); const j = int(8, Math.min(b.length - 1, 8 + n)); if (b[j] >= 48 && b[j] <= 57) b[j] = 48 + int(0, 9); } // a digit
      else { const c = new Uint8Array(b.length + int(1, 16)); c.set(b); b = c; } // trailing bytes
    }
    let h;
    try {
      h = parseSafetensorsHeader(b);
    } catch (e) {
      if (!(e instanceof TypeError || e instanceof RangeError)) throw new Error(`case ${i}: ${e?.constructor?.name}: ${e?.message}`);
      expect(e.message).not.toMatch(/\n/);
      expect(e.message.length).toBeLessThan(400);
      tally.refused++;
      continue;
    }
    tally.ok++;
    let at = h.dataOffset;
    for (const t of h.tensors) {
      expect([i, t.offset]).toEqual([i, at]);
      expect(t.byteLength).toBe(t.shape.reduce((a, x) => a * x, 1) * SIZE[t.dtype] || (t.dtype in SIZE ? 0 : NaN));
      at += t.byteLength;
    }
    expect([i, at]).toEqual([i, b.length]);
  }
  expect(tally.ok).toBeGreaterThan(400);
  expect(tally.refused).toBeGreaterThan(400);
});
