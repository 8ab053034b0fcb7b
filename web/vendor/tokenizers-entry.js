// tokenizers.js (@huggingface/tokenizers), bundled into web/vendor/tokenizers.js by scripts/build-dist.js (loaded
// only when a model's tokenizer.json is read; the pages use no import map, and web/lib runs unbundled in them).
export { Tokenizer } from '@huggingface/tokenizers';
