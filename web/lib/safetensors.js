// Hugging Face safetensors, read from bytes a stranger hands the page: the header of a
// `.safetensors` file and the `model.safetensors.index.json` of a sharded model.
//
// A file is: u64 little-endian N, then N bytes of JSON (the header), then the data. The header maps
// each tensor name to {dtype, shape, data_offsets: [begin, end]} (offsets into the data, end
// exclusive), plus an optional "__metadata__" of string values. As the format's own validation
// does, every tensor's byte count must equal its element count times its dtype's size, and the
// tensors must cover the data exactly, in order, with no hole and no overlap.
// Every size is bounded before anything is allocated; every problem is a TypeError or RangeError
// whose one-line message names the file, the tensor and the field.
import { plainJson } from './json-guard.js';

const BYTES = Object.freeze({ BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1, I16: 2, U16: 2, F16: 2, BF16: 2, I32: 4, U32: 4, F32: 4, F64: 8, I64: 8, U64: 8 });
/** The dtypes whose tensors the model loader can use (kept in their 16 or 32 bits in memory). */
export const WEIGHT_DTYPES = Object.freeze(['F32', 'F16', 'BF16']);
// A header is JSON text; real ones are a few hundred KB (a 7B model: about 30 KB per 100 tensors).
export const MAX_HEADER_BYTES = 100 * 2 ** 20;
const MAX_RANK = 8;

const show = (x) => JSON.stringify(x)?.slice(0, 60) ?? String(x);
const asBytes = (bytes, name) => {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError(`${name} must be a Uint8Array or an ArrayBuffer with the file's bytes (got ${bytes === null ? 'null' : typeof bytes})`);
};
const safeInt = (x) => Number.isSafeInteger(x) && x >= 0;

/**
 * The header of a .safetensors file: {headerBytes, dataOffset, metadata, tensors: [{name, dtype, shape,
 * offset, byteLength}]} with `offset` from the start of the file, in file order. `bytes` may be the whole
 * file or only its start (then `fileSize` gives the whole size, and the data is checked against it).
 */
export function parseSafetensorsHeader(bytes, { name = 'model.safetensors', fileSize } = {}) {
  const b = asBytes(bytes, name);
  const size = fileSize ?? b.length;
  if (!safeInt(size) || size < b.length) throw new RangeError(`${name}: fileSize must be an integer >= the bytes given (${b.length}) (got ${show(fileSize)})`);
  if (b.length < 8) throw new RangeError(`${name} is not a safetensors file: it has ${b.length} bytes, fewer than the 8 of its header length`);
  const view = new DataView(b.buffer, b.byteOffset, 8);
  const n = view.getBigUint64(0, true);
  if (n < 2n || n > BigInt(MAX_HEADER_BYTES))
    throw new RangeError(`${name}: the header length ${n} is not in [2, ${MAX_HEADER_BYTES}] bytes (not a safetensors file, or a damaged one)`);
  const headerBytes = Number(n);
  if (8 + headerBytes > b.length)
    throw new RangeError(`${name} is truncated: its header needs ${headerBytes} bytes after the first 8, and ${b.length - 8} are present`);
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(8, 8 + headerBytes));
  } catch {
    throw new RangeError(`${name}: the header is not UTF-8 text`);
  }
  const header = plainJson(text, `${name} header`); // (the format pads it with spaces, which JSON allows)
  const dataOffset = 8 + headerBytes;
  const dataBytes = size - dataOffset;
  let metadata = null;
  const tensors = [];
  for (const key of Object.keys(header)) {
    const entry = header[key];
    if (key === '__metadata__') {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry) || !Object.values(entry).every((x) => typeof x === 'string'))
        throw new TypeError(`${name}: __metadata__ must map names to strings (got ${show(entry)})`);
      metadata = { ...entry };
      continue;
    }
    const where = `${name}: tensor ${show(key)}`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new TypeError(`${where} must be {dtype, shape, data_offsets} (got ${show(entry)})`);
    const { dtype, shape, data_offsets: offs } = entry;
    if (!Object.hasOwn(BYTES, dtype)) throw new RangeError(`${where} has dtype ${show(dtype)}, which safetensors does not define (${Object.keys(BYTES).join(', ')})`);
    if (!Array.isArray(shape) || shape.length > MAX_RANK || !shape.every(safeInt))
      throw new RangeError(`${where}: shape must be a list of at most ${MAX_RANK} non-negative integers (got ${show(shape)})`);
    if (!Array.isArray(offs) || offs.length !== 2 || !offs.every(safeInt) || offs[0] > offs[1])
      throw new RangeError(`${where}: data_offsets must be [begin, end] with 0 <= begin <= end (got ${show(offs)})`);
    if (offs[1] > dataBytes) throw new RangeError(`${where} ends at data byte ${offs[1]}, past the ${dataBytes} bytes of data (a truncated file?)`);
    // Element count, with every partial product bounded (a lying shape must not overflow the check).
    let count = shape.includes(0) ? 0 : 1;
    for (const d of shape) {
      if (count > dataBytes) break;
      count *= d;
    }
    const byteLength = offs[1] - offs[0];
    if (count * BYTES[dtype] !== byteLength)
      throw new RangeError(`${where}: shape ${show(shape)} of ${dtype} needs ${count > dataBytes ? 'more than the file holds' : `${count * BYTES[dtype]} bytes`}, and data_offsets give ${byteLength}`);
    tensors.push({ name: key, dtype, shape: shape.slice(), offset: dataOffset + offs[0], byteLength, begin: offs[0], end: offs[1] });
  }
  // The data is covered exactly: sorted by begin, each starts where the previous ended, the last ends at the end.
  tensors.sort((x, y) => x.begin - y.begin || x.end - y.end);
  let at = 0;
  for (const t of tensors) {
    if (t.begin !== at)
      throw new RangeError(`${name}: tensor ${show(t.name)} starts at data byte ${t.begin}, where ${t.begin > at ? `a hole of ${t.begin - at} bytes` : 'an overlap'} begins (the tensors must cover the data in order)`);
    at = t.end;
  }
  if (at !== dataBytes) throw new RangeError(`${name}: the tensors cover ${at} bytes of data and the file has ${dataBytes}`);
  return { headerBytes, dataOffset, metadata, tensors: tensors.map(({ begin, end, ...t }) => t) };
}

/**
 * A sharded model's model.safetensors.index.json (text or parsed): {files: [shard names in first-use order],
 * weightMap: Map(tensor name -> shard name), totalSize (or null)}. Shard names are plain file names.
 */
export function parseSafetensorsIndex(json, { name = 'model.safetensors.index.json' } = {}) {
  const index = plainJson(json, name);
  const map = index.weight_map;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw new TypeError(`${name}: weight_map must map tensor names to shard files (got ${show(map)})`);
  const weightMap = new Map();
  const files = [];
  for (const [tensor, file] of Object.entries(map)) {
    if (typeof file !== 'string' || !/^[\w.-]{1,200}\.safetensors$/.test(file) || file.startsWith('.'))
      throw new RangeError(`${name}: weight_map[${show(tensor)}] must be a shard file name ending in .safetensors, with no path (got ${show(file)})`);
    weightMap.set(tensor, file);
    if (!files.includes(file)) files.push(file);
  }
  if (!weightMap.size) throw new RangeError(`${name}: weight_map is empty`);
  const total = index.metadata?.total_size;
  if (total != null && !safeInt(total)) throw new RangeError(`${name}: metadata.total_size must be a non-negative integer (got ${show(total)})`);
  return { files, weightMap, totalSize: total ?? null };
}
