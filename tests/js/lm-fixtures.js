// Files for the real-model tests, written by the tests themselves from the shared stories260K files
// (../shared/models/stories260K, never copied into the repository): its llama2.c tokenizer as an HF
// tokenizer.json, the way HF's conversion of a SentencePiece BPE vocabulary does it.
import { existsSync, readFileSync } from 'node:fs';

export const SHARED = new URL('../../../shared/models/stories260K/', import.meta.url);
export const haveShared = () => existsSync(new URL('stories260K.bin', SHARED));
/** A one-line notice and a skipped test when ../shared is missing (a user's bare clone). */
export const sharedTest = (name, fn, timeout) => {
  if (haveShared()) return test(name, fn, timeout);
  console.log(`skipped (no ../shared/models/stories260K here): ${name}`);
  return test.skip(name, fn);
};

/** llama2.c tokenizer.bin: int32 max_token_length, then per token float32 score, int32 length, bytes. */
export function readLlama2cTokenizer(bytes, vocabSize) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pieces = [], scores = [];
  let at = 4;
  for (let i = 0; i < vocabSize; i++) {
    scores.push(view.getFloat32(at, true));
    const n = view.getInt32(at + 4, true);
    pieces.push(new TextDecoder().decode(bytes.subarray(at + 8, at + 8 + n)));
    at += 8 + n;
  }
  return { pieces, scores };
}

/**
 * tokenizer.json for a SentencePiece BPE vocabulary with byte fallback (Llama's), as HF's LlamaConverter writes it:
 * spaces as U+2581 with a prepended one, merges from the vocabulary ordered by the merged piece's score
 * (SentencePieceExtractor), <0xXX> byte pieces, <s> added by the post-processor.
 */
export function sentencepieceTokenizerJson({ pieces, scores }) {
  const sp = pieces.map((p, i) => (i < 3 ? ['<unk>', '<s>', '</s>'][i] : p.replace(/ /g, '\u2581')));
  const vocab = Object.fromEntries(sp.map((p, i) => [p, i]));
  const merges = [];
  const order = sp.map((_, i) => i).filter((i) => i >= 3).sort((a, b) => scores[b] - scores[a] || a - b);
  for (const id of order) {
    const piece = sp[id];
    const local = [];
    const chars = [...piece];
    for (let k = 1; k < chars.length; k++) {
      const l = chars.slice(0, k).join(''), r = chars.slice(k).join('');
      if (l in vocab && r in vocab) local.push([l, r]);
    }
    local.sort((x, y) => vocab[x[0]] - vocab[y[0]] || vocab[x[1]] - vocab[y[1]]);
    merges.push(...local.map(([l, r]) => `${l} ${r}`));
  }
  const special = (id, content) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    added_tokens: [special(0, '<unk>'), special(1, '<s>'), special(2, '</s>')],
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '\u2581' }, { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' }] },
    pre_tokenizer: null,
    post_processor: { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 0 } }],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } } },
    decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '\u2581' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' },
      { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
    model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: true,
      byte_fallback: true, ignore_merges: false, vocab, merges },
  };
}

export const readShared = (file) => new Uint8Array(readFileSync(new URL(file, SHARED)));
