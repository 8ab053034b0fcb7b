// Checkpoint bytes, read and patched without the wasm module: the config
// block of a version-1 posenc checkpoint (see cpp/src/checkpoint.cpp).
const ENCODINGS = ['none', 'sinusoidal', 'learned', 't5', 'alibi', 'rope', 'shaw'];
const POLICIES = ['error', 'clamp', 'zero'];
const AT = { encoding: 12, layers: 16, heads: 20, dModel: 24, vocabSize: 32, maxLength: 36, policy: 76, trainedLength: 80 };

function fnv1a64(bytes, end) {
  let h = 14695981039346656037n;
  for (let i = 0; i < end; i++) h = BigInt.asUintN(64, (h ^ BigInt(bytes[i])) * 1099511628211n);
  return h;
}

/** The config fields the page needs, or null if these are not posenc checkpoint bytes. */
export function peekConfig(bytes) {
  if (bytes.length < 100 || String.fromCharCode(...bytes.subarray(0, 4)) !== 'PSNC') return null;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const i32 = (o) => v.getInt32(o, true);
  return {
    encoding: ENCODINGS[i32(AT.encoding)], layers: i32(AT.layers), heads: i32(AT.heads), dModel: i32(AT.dModel),
    vocabSize: i32(AT.vocabSize), maxLength: i32(AT.maxLength), learnedPolicy: POLICIES[i32(AT.policy)],
    trainedLength: i32(AT.trainedLength),
  };
}

/** A copy of a learned model's checkpoint with another out-of-table policy (checksum updated). */
export function withLearnedPolicy(bytes, policy) {
  const c = peekConfig(bytes);
  if (!c || c.encoding !== 'learned' || c.learnedPolicy === policy) return bytes;
  const out = new Uint8Array(bytes);
  const v = new DataView(out.buffer);
  v.setUint32(AT.policy, POLICIES.indexOf(policy), true);
  v.setBigUint64(out.length - 8, fnv1a64(out, out.length - 8), true);
  return out;
}
