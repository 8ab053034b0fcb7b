// Small GGUF files with a byte-level BPE vocabulary (tokenizer.ggml.model "gpt2"), as llama.cpp's converter writes
// Llama 3's, Qwen2's, SmolLM's and GPT-2's: the 256 byte characters of GPT-2 (bytes_to_unicode), tokens merged from a
// list of words, control tokens, and a tiny random llama. Also the same vocabulary as a tokenizer.json with each
// family's published pre-tokenizer (written here from those files, not from the core's table). Plain ESM with no Node
// imports, so the browser suites use it too.
import { GGML, ggufFile, f32Bytes } from './gguf-writer.js';
import { mulberry32 } from './reference.js';

// GPT-2's bytes_to_unicode: printable bytes stand for themselves, the others for 256 + n in byte order.
const BYTE = (() => {
  const keep = [];
  for (let b = 0; b < 256; b++) if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174) keep.push(b);
  const out = new Array(256);
  let n = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + n++);
  return out;
})();
const UNBYTE = new Map(BYTE.map((c, b) => [c, b]));
/** Text as GPT-2's byte characters. */
export const byteLevel = (s) => Array.from(new TextEncoder().encode(s), (b) => BYTE[b]).join('');
/** A byte-level token's text, or null when its bytes are not whole UTF-8 characters. */
export function tokenText(t) {
  const bytes = Array.from(t, (c) => UNBYTE.get(c));
  if (bytes.some((b) => b === undefined)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

// Words merged whole, left to right (every prefix a token): spaces, newlines, digit runs, contractions, accents, CJK, emoji.
const WORDS = ['the', ' the', ' cat', ' sat', ' on', ' mat', ' Hello', 'Hello', ' world', 'don', ' don', ' DON', "'t", "'T", "'s", "'ll", ' it', ' we',
  ' na', ' naïve', ' café', 'café', ' 日本', '日本', '\n\n', '\n', '  ', '   ', ' \n', '12', '123', '45', '456', '67', ' 12', ' 123', ' and', ' digits',
  '🙂', ' 🙂', '🙂🙂', ' end', ' stop', '...', ' ...', '!', ' emoji'];
export const TEXTS = ['the cat sat on the mat', 'Hello world\n\n  don\'t  stop \n', '12345 and 1234567 digits, 3.14159', "don't DON'T it's we'll",
  'naïve café 日本', 'emoji 🙂🙂 end...', ' xyzzy and xyzzy'];
const SPECIAL = ['<|begin_of_text|>', '<|end_of_text|>', '<|endoftext|>'];

/** The vocabulary: {tokens, types, merges}; ids 0-255 the bytes, then merged tokens, ' xyzzy' (no merges reach it), the specials. */
export function bpeVocabulary() {
  const tokens = [...BYTE], types = tokens.map(() => 1), merges = [], have = new Set(tokens);
  for (const w of WORDS) {
    const cs = Array.from(byteLevel(w));
    let left = cs[0];
    for (const c of cs.slice(1)) {
      const m = left + c;
      if (!have.has(m)) {
        merges.push(`${left} ${c}`);
        tokens.push(m);
        types.push(1);
        have.add(m);
      }
      left = m;
    }
  }
  tokens.push(byteLevel(' xyzzy')), types.push(1); // whole, with no merges that reach it: only Llama 3's ignore_merges finds it
  for (const s of SPECIAL) tokens.push(s), types.push(3);
  return { tokens, types, merges };
}

/**
 * A one-layer llama GGUF (dim 64, float32) with that vocabulary: pre (tokenizer.ggml.pre, or null to leave it out),
 * addBos (tokenizer.ggml.add_bos_token, or null to leave it out). The output rows of tokens that are not whole UTF-8
 * characters (single bytes, partial characters) are zero and the others large, so the likeliest next tokens are text
 * (llama.cpp's answer cannot carry part of a character).
 */
export function bpeGguf({ pre, addBos, seed = 1, edit = null }) {
  const { tokens, types, merges } = bpeVocabulary();
  const rnd = mulberry32(seed);
  const r = (n, s) => Array.from({ length: n }, () => (rnd() * 2 - 1) * s);
  const D = 64, F = 128, V = tokens.length, H = 4;
  const out = r(V * D, 0.5);
  tokens.forEach((t, i) => { if (types[i] !== 1 || !tokenText(t) || !tokenText(t).trim()) out.fill(0, i * D, (i + 1) * D); });
  const bos = tokens.indexOf(pre === 'qwen2' ? '<|endoftext|>' : '<|begin_of_text|>');
  const kv = [['general.architecture', 'string', 'llama'], ['general.name', 'string', `posenc bpe ${pre}`],
    ['llama.context_length', 'u32', 128], ['llama.embedding_length', 'u32', D], ['llama.block_count', 'u32', 1], ['llama.feed_forward_length', 'u32', F],
    ['llama.attention.head_count', 'u32', H], ['llama.attention.head_count_kv', 'u32', H], ['llama.rope.freq_base', 'f32', 10000],
    ['llama.attention.layer_norm_rms_epsilon', 'f32', 1e-5], ['llama.rope.dimension_count', 'u32', D / H], ['llama.vocab_size', 'u32', V],
    ['tokenizer.ggml.model', 'string', 'gpt2'], ['tokenizer.ggml.tokens', ['array', 'string'], tokens],
    ['tokenizer.ggml.token_type', ['array', 'i32'], types], ['tokenizer.ggml.merges', ['array', 'string'], merges],
    ['tokenizer.ggml.bos_token_id', 'u32', bos], ['tokenizer.ggml.eos_token_id', 'u32', tokens.indexOf('<|endoftext|>')]];
  if (pre != null) kv.push(['tokenizer.ggml.pre', 'string', pre]);
  if (addBos != null) kv.push(['tokenizer.ggml.add_bos_token', 'bool', addBos]);
  const f32 = (name, shape, data) => ({ name, shape, type: GGML.F32, bytes: f32Bytes(data) });
  const n = (shape) => shape.reduce((a, b) => a * b, 1);
  const tensors = [f32('token_embd.weight', [V, D], r(V * D, 1)), f32('output_norm.weight', [D], r(D, 0.2).map((x) => 1 + x)), f32('output.weight', [V, D], out)];
  const p = 'blk.0.';
  tensors.push(f32(p + 'attn_norm.weight', [D], r(D, 0.2).map((x) => 1 + x)), f32(p + 'ffn_norm.weight', [D], r(D, 0.2).map((x) => 1 + x)));
  for (const name of ['attn_q', 'attn_k', 'attn_v', 'attn_output']) tensors.push(f32(`${p}${name}.weight`, [D, D], r(n([D, D]), 0.3)));
  tensors.push(f32(p + 'ffn_gate.weight', [F, D], r(F * D, 0.3)), f32(p + 'ffn_up.weight', [F, D], r(F * D, 0.3)), f32(p + 'ffn_down.weight', [D, F], r(D * F, 0.3)));
  if (edit) edit({ kv, tensors });
  return ggufFile({ kv, tensors });
}

// The published pre-tokenizers (tokenizer.json's pre_tokenizer) of each family, as their files on the Hub have them.
const SPLIT = (regex) => ({ type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false });
const BYTES = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false };
const HUB = {
  // meta-llama/Llama-3.2-1B tokenizer.json
  'llama-bpe': { pre_tokenizer: { type: 'Sequence', pretokenizers: [SPLIT("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"), BYTES] },
    ignore_merges: true, bos: '<|begin_of_text|>' },
  // Qwen/Qwen2.5-0.5B tokenizer.json (with its NFC normalizer)
  qwen2: { normalizer: { type: 'NFC' }, pre_tokenizer: { type: 'Sequence', pretokenizers: [SPLIT("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"), BYTES] } },
  // openai-community/gpt2 tokenizer.json
  'gpt-2': { pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true } },
  // HuggingFaceTB/SmolLM2-135M tokenizer.json
  smollm: { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: true }, { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }] } },
};
export const HUB_FAMILIES = Object.keys(HUB);

/** The vocabulary as a tokenizer.json with the family's published pre-tokenizer (and BOS template where it adds one). */
export function hubTokenizerJson(family) {
  const { tokens, types, merges } = bpeVocabulary();
  const h = HUB[family];
  const added = tokens.map((t, id) => ({ id, content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })).filter((_, i) => types[i] === 3);
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: added, normalizer: h.normalizer ?? null, pre_tokenizer: h.pre_tokenizer,
    post_processor: h.bos ? { type: 'TemplateProcessing', single: [{ SpecialToken: { id: h.bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [], special_tokens: { [h.bos]: { id: h.bos, ids: [tokens.indexOf(h.bos)], tokens: [h.bos] } } } : { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false,
      ignore_merges: Boolean(h.ignore_merges), vocab: Object.fromEntries(tokens.map((t, i) => [t, i])), merges: merges.map((m) => m.split(' ')) },
  };
}
