// Hugging Face tokenizer.json (BPE with byte fallback as Llama's, byte-level BPE as GPT-2's, SmolLM's
// and Qwen's), through @huggingface/tokenizers (tokenizers.js: about 37 KB minified, no dependencies;
// the same code transformers.js runs), imported only when a tokenizer.json is read: from web/vendor/ (bundled
// there by scripts/build-dist.js, as the pages take no bare module names), and by bundlers into dist/. A stranger's file is hostile until proven otherwise: its JSON
// passes plainJson's limits, its shape is checked before the library sees it, and whatever the library
// throws on it comes back as a RangeError naming the file. Token ids are checked against the model's
// vocabulary by the caller (the loader knows the vocab size).
import { plainJson } from './json-guard.js';
import { show } from './validate.js';

const MODELS = ['BPE', 'WordPiece', 'Unigram'];
// A byte-level vocabulary of a large model is a few MB of JSON; 50 MB leaves room and stops a runaway paste.
const LIMITS = Object.freeze({ chars: 50_000_000, depth: 32, nodes: 10_000_000, arrayLength: 2_000_000 });

/** JSON made of plain data only (plainJson's copy has null prototypes, which the library's lookups do not expect). */
const plain = (x) => JSON.parse(JSON.stringify(x));

/**
 * A tokenizer from tokenizer.json (JSON text or a parsed object) and, optionally, tokenizer_config.json.
 * Resolves to {encode(text, {addSpecialTokens = true}) -> Int32Array, decode(ids) -> string, vocabSize, bos}.
 */
export async function createHfTokenizer(tokenizerJson, { config = {}, name = 'tokenizer.json' } = {}) {
  const json = plain(plainJson(tokenizerJson, name, LIMITS));
  const cfg = plain(plainJson(config, 'tokenizer_config.json'));
  const model = json.model;
  if (model === null || typeof model !== 'object' || Array.isArray(model))
    throw new TypeError(`${name}: model must be an object such as {"type": "BPE", "vocab": {...}, "merges": [...]} (got ${show(model)})`);
  if (!MODELS.includes(model.type)) throw new RangeError(`${name}: model.type must be one of ${MODELS.join(', ')} (got ${show(model.type)})`);
  const vocab = model.vocab;
  if (vocab === null || typeof vocab !== 'object')
    throw new TypeError(`${name}: model.vocab must map tokens to ids (got ${show(vocab)})`);
  const ids = Array.isArray(vocab) ? vocab.map((_, i) => i) : Object.values(vocab);
  if (!ids.length || !ids.every((id) => Number.isInteger(id) && id >= 0 && id < 1 << 24))
    throw new RangeError(`${name}: model.vocab must give every token an integer id in [0, 2^24) (got ${show(ids.find((id) => !Number.isInteger(id) || id < 0 || id >= 1 << 24) ?? 'no tokens')})`);
  if (model.type === 'BPE' && model.merges != null && !Array.isArray(model.merges))
    throw new TypeError(`${name}: model.merges must be a list (got ${show(model.merges)})`);
  const { Tokenizer } = await import('../vendor/tokenizers.js');
  let tok;
  try {
    tok = new Tokenizer(json, cfg);
  } catch (e) {
    throw new RangeError(`${name} could not be read as a tokenizer: ${oneLine(e)}`);
  }
  const added = Array.isArray(json.added_tokens) ? json.added_tokens : [];
  const bosText = typeof cfg.bos_token === 'string' ? cfg.bos_token : cfg.bos_token?.content;
  const bos = added.find((t) => t?.content === bosText)?.id ?? null;
  return {
    vocabSize: largest([...ids, ...added.map((t) => (Number.isInteger(t?.id) ? t.id : 0))]) + 1,
    bos,
    encode(text, { addSpecialTokens = true } = {}) {
      if (typeof text !== 'string') throw new TypeError(`text must be a string (got ${show(text)})`);
      let out;
      try {
        out = tok.encode(text, { add_special_tokens: addSpecialTokens });
      } catch (e) {
        throw new RangeError(`${name} could not encode the text: ${oneLine(e)}`);
      }
      const idsOut = Int32Array.from(out.ids);
      if (idsOut.some((id) => id < 0)) throw new RangeError(`${name} gave a token no id (an unknown token with no unk_token)`);
      return idsOut;
    },
    decode(list) {
      const ids = Array.from(list, Number);
      return ids.length ? tok.decode(ids, { skip_special_tokens: false }) : '';
    },
  };
}

// (not Math.max(...xs): a spread of a large vocabulary's ids, 128,256 for Llama 3, overflows V8's stack)
const largest = (xs) => xs.reduce((m, x) => (x > m ? x : m), -Infinity);
const oneLine = (e) => String(e?.message ?? e).replace(/\s+/g, ' ').slice(0, 200);
