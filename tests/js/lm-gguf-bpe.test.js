// A GGUF's own byte-level BPE tokenizer (tokenizer.ggml.model "gpt2": Llama 3, Qwen2/2.5/3, SmolLM, OLMo 2), read from
// the file. Before it, such a file loaded its weights and had no tokenizer ("this model has no tokenizer"), while the
// library refused a tokenizer.json beside a GGUF. Witness here: a tokenizer.json written by the test (tests/js/gguf-bpe.js)
// with the same vocabulary and merges and each family's published pre-tokenizer must give the same ids for texts with
// spaces, newlines, digit runs, contractions, accents, CJK and emoji. llama.cpp itself is the second witness
// (tests/browser/lm-gguf-bpe.test.js). Each detail is shown to matter: another family's split, BOS where
// add_bos_token says none, Llama 3's ignore_merges.
import { loadLanguageModelApi } from '../../web/lib/lm.js';
import { createHfTokenizer } from '../../web/lib/hf-tokenizer.js';
import { TEXTS, HUB_FAMILIES, bpeGguf, bpeVocabulary, byteLevel, hubTokenizerJson } from './gguf-bpe.js';

let api; // the language models' API on its own module (its memory is this test's alone)
beforeAll(async () => {
  api = await loadLanguageModelApi({});
});

const ADD_BOS = { 'llama-bpe': true, qwen2: false, 'gpt-2': false, smollm: false };
const load = (pre, addBos = ADD_BOS[pre], edit = null) => api.loadLanguageModel({ model: bpeGguf({ pre, addBos, edit }) });
const idsOf = (lm, texts = TEXTS) => texts.map((t) => Array.from(lm.encode(t)));
const hubIds = async (family, texts = TEXTS, change = (j) => j) => {
  const tok = await createHfTokenizer(change(hubTokenizerJson(family)));
  return texts.map((t) => Array.from(tok.encode(t)));
};

test.each(HUB_FAMILIES)('a GGUF with the %s pre-tokenizer encodes as that family\'s published tokenizer.json does', async (family) => {
  const lm = await load(family);
  try {
    expect([lm.hasTokenizer, lm.tokenizerNote]).toEqual([true, '']);
    expect(lm.tokenizerLabel).toMatch(/^byte-level BPE, text split .+'s way \(/);
    expect(idsOf(lm)).toEqual(await hubIds(family));
    // BOS only where the file says so; bos: false leaves it out
    const bos = bpeVocabulary().tokens.indexOf('<|begin_of_text|>');
    expect(lm.encode('the cat')[0] === bos).toBe(ADD_BOS[family]);
    expect(lm.encode('the cat', { bos: false })[0]).not.toBe(bos);
  } finally {
    lm.delete();
  }
});

test('the splits the families differ in: digit runs, contractions in capitals, a whole token no merge reaches', async () => {
  const pieces = async (pre, text) => {
    const lm = await load(pre, false);
    try {
      return Array.from(lm.encode(text), (id) => lm.piece(id));
    } finally {
      lm.delete();
    }
  };
  expect(await pieces('llama-bpe', '12345')).toEqual(['123', '45']);
  expect(await pieces('qwen2', '12345')).toEqual(['1', '2', '3', '4', '5']);
  expect(await pieces('gpt-2', '12345')).toEqual(['123', '45']); // GPT-2: a digit run is one piece, merged as far as merges go
  expect(await pieces('smollm', ' 12')).toEqual([' ', '1', '2']);
  expect(await pieces('llama-bpe', " DON'T")).toEqual([' DON', "'T"]); // Llama 3: contractions in any case
  expect(await pieces('gpt-2', " DON'T")).toEqual([' DON', "'", 'T']); // GPT-2: in lower case only
  expect(await pieces('llama-bpe', ' xyzzy')).toEqual([' xyzzy']); // ignore_merges: the piece is a token
  expect((await pieces('qwen2', ' xyzzy')).length).toBe(6);
});

test('the witness tells each detail: another family\'s split, BOS where the file has none, ignore_merges dropped', async () => {
  const differs = (a, b) => a.some((ids, i) => JSON.stringify(ids) !== JSON.stringify(b[i]));
  const qwen = await load('qwen2'), llama = await load('llama-bpe');
  const qwenBos = await load('qwen2', true);
  try {
    expect(differs(idsOf(qwen), await hubIds('llama-bpe', TEXTS, (j) => ({ ...j, post_processor: null })))).toBe(true); // digits 1-3 against 1
    expect(differs(idsOf(qwenBos), await hubIds('qwen2'))).toBe(true); // BOS added where add_bos_token is false
    expect(differs(idsOf(llama), await hubIds('llama-bpe', TEXTS, (j) => ({ ...j, model: { ...j.model, ignore_merges: false } })))).toBe(true);
  } finally {
    for (const lm of [qwen, llama, qwenBos]) lm.delete();
  }
});

test('every pre-tokenizer of the core\'s table loads, a file that names none gets llama.cpp\'s fallback, an unknown one is refused by name', async () => {
  const table = api.mod.lmBpePreTokenizers();
  expect(table.length).toBeGreaterThanOrEqual(6);
  // each row by its name, and the aliases Llama 3.x and OLMo (1) files carry
  for (const name of [...table.map((row) => row.names.split(',')[0]), 'llama3', 'olmo']) {
    const lm = await load(name, false);
    expect([name, lm.hasTokenizer, lm.encode('the 12345 cats').length > 0]).toEqual([name, true, true]);
    lm.delete();
  }
  // add_bos_token left out: llama.cpp's default for the pre-tokenizer (BOS for Llama 3's, none for Qwen2's)
  const bos = bpeVocabulary().tokens.indexOf('<|begin_of_text|>');
  for (const [pre, first] of [['llama-bpe', true], ['qwen2', false]]) {
    const lm = await load(pre, null);
    expect([pre, lm.encode('the cat')[0] === bos]).toEqual([pre, first]);
    lm.delete();
  }
  const none = await load(null, false);
  expect(none.tokenizerLabel).toMatch(/llama\.cpp's fallback/);
  expect(Array.from(none.encode('12345'), (id) => none.piece(id))).toEqual(['123', '45']);
  none.delete();
  const unknown = await load('made-up-pre', false);
  expect(unknown.hasTokenizer).toBe(false);
  expect(unknown.tokenizerNote).toMatch(/^its byte-level tokenizer splits text with the pre-tokenizer "made-up-pre", which posenc does not know \(it knows llama-bpe, /);
  expect(unknown.tokenizerNote.split('. ').length).toBe(1);
  expect(() => unknown.encode('the cat')).toThrow(/this model has no tokenizer: its byte-level tokenizer/);
  unknown.delete();
});

test('a broken byte-level vocabulary is refused with an error naming its key, and nothing is left behind', async () => {
  const set = (key, type, value) => ({ kv }) => {
    const i = kv.findIndex(([k]) => k === key);
    if (value === undefined) kv.splice(i, 1);
    else kv[i] = [key, type, value];
  };
  const { tokens, merges } = bpeVocabulary();
  const cases = [
    [set('tokenizer.ggml.merges'), /tokenizer\.ggml\.merges is missing/],
    [set('tokenizer.ggml.merges', ['array', 'i32'], [1, 2]), /tokenizer\.ggml\.merges must be an array of strings/],
    [set('tokenizer.ggml.tokens', ['array', 'string'], tokens.slice(1)), /tokenizer\.ggml\.tokens has \d+ tokens; token_embd\.weight has/],
    [set('tokenizer.ggml.token_type', ['array', 'i32'], [1, 1]), /token_type must be an array of int32, one per token/],
    [set('tokenizer.ggml.pre', 'u32', 3), /tokenizer\.ggml\.pre must be a string/],
    // a merge into a piece that is no token (a tokenizer.json reader dropped such a piece's text: seen on "12")
    [set('tokenizer.ggml.merges', ['array', 'string'], [...merges, '\u0120x yzzy']), /merges\[\d+\] \("\u0120x yzzy"\) joins or makes a piece that is not a token/],
    [set('tokenizer.ggml.bos_token_id', 'u32', 1 << 20), /bos_token_id must be a token id in \[0, /],
    [set('tokenizer.ggml.bos_token_id'), /add_bos_token is true but tokenizer\.ggml\.bos_token_id is missing/],
  ];
  const refuse = async () => {
    for (const [edit, message] of cases)
      await expect(api.loadLanguageModel({ model: bpeGguf({ pre: 'llama-bpe', addBos: true, edit }) })).rejects.toThrow(message);
  };
  await refuse(); // (the first round leaves the module's last error message behind)
  const before = api.mod.lmMemoryUsed();
  await refuse();
  expect(api.mod.lmMemoryUsed()).toBe(before);
  expect(merges.length).toBeGreaterThan(100);
});

test('the tokens of a text spell its bytes as GPT-2 writes them (the fixture\'s byte map against the vocabulary the core reads)', async () => {
  const lm = await load('gpt-2');
  const { tokens } = bpeVocabulary();
  try {
    for (const text of TEXTS) expect(Array.from(lm.encode(text), (id) => tokens[id]).join('')).toBe(byteLevel(text));
    expect(byteLevel(' \n')).toBe('\u0120\u010a');
  } finally {
    lm.delete();
  }
});
