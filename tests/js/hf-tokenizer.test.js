// HF tokenizer.json through web/lib/hf-tokenizer.js: token ids equal to independent references, and hostile
// files refused with a named TypeError/RangeError.
//  - stories260K's SentencePiece vocabulary (../shared; skipped with a notice where it is missing), converted
//    to tokenizer.json as HF's LlamaConverter does, against tests/lm/reference.py's llama2.c encode;
//  - a byte-level BPE tokenizer (GPT-2's scheme) the test writes, against a plain BPE written here;
//  - a seeded fuzz of mutated tokenizer files (POSENC_FUZZ_SEED=random explores a new sequence).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHfTokenizer } from '../../web/lib/hf-tokenizer.js';
import { mulberry32 } from './reference.js';
import { readLlama2cTokenizer, sentencepieceTokenizerJson, readShared, sharedTest, SHARED } from './lm-fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TEXTS = [
  '', 'a', ' leading and  double  spaces ', 'Once upon a time, there was a little girl named Mia.\n\nShe said: "Wait!"',
  'naïve café, Straße, Ελληνικά, 日本語, emoji 🙂🚀', 'digits 0123456789 and tabs\tand\r\nCRLF', '<s> is not special text',
];

sharedTest('stories260K tokenizer.json (converted as HF does) gives the ids of llama2.c encode (the float64 reference\'s)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-tok-'));
  try {
    const story = execFileSync('cat', [join(root, 'web/app/lm/passage.txt')], { encoding: 'utf8' });
    const texts = [...TEXTS, story];
    const files = texts.map((t, i) => { const f = join(dir, `t${i}.txt`); writeFileSync(f, t); return f; });
    // tests/lm/reference.py's own tokenizer (it shares no code with this one)
    const ref = JSON.parse(execFileSync('/usr/bin/python3', ['-c', `
import sys, json; sys.path.insert(0, sys.argv[1]); import reference as r
pieces, scores = r.read_tokenizer(sys.argv[2], 512)
print(json.dumps([r.encode(open(a, encoding='utf-8', newline='').read(), pieces, scores) for a in sys.argv[3:]]))`,
    join(root, 'tests/lm'), fileURLToPath(new URL('tok512.bin', SHARED)), ...files], { encoding: 'utf8' }));
    const tok = await createHfTokenizer(JSON.stringify(sentencepieceTokenizerJson(readLlama2cTokenizer(readShared('tok512.bin'), 512))),
      { config: { bos_token: '<s>' } });
    expect(tok.bos).toBe(1);
    expect(tok.vocabSize).toBe(512);
    texts.forEach((t, i) => {
      const ids = Array.from(tok.encode(t));
      // The one known difference: HF's tokenizers match special tokens written in the text ("<s>" -> id 1),
      // llama2.c's encode spells them out as text. Elsewhere the ids are equal.
      if (t.includes('<s>')) expect(ids.slice(0, 2)).toEqual([1, 1]);
      else expect([t.slice(0, 30), ids]).toEqual([t.slice(0, 30), ref[i]]);
    });
    expect(ref.at(-1).length).toBeGreaterThan(4000); // the whole story: 4,503 tokens
    expect(tok.decode(tok.encode(story).subarray(1))).toBe(story);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- byte-level BPE (GPT-2's scheme), written here
const BYTE_CHARS = (() => { // GPT-2's bytes_to_unicode
  const keep = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const map = new Array(256);
  let n = 0;
  for (let b = 0; b < 256; b++) map[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + n++);
  return map;
})();
const MERGES = [['Ġ', 't'], ['h', 'e'], ['Ġt', 'he'], ['i', 'n'], ['Ġ', 'a'], ['o', 'n'], ['e', 'r'], ['Ġ', 'w'], ['o', 'r'], ['Ġw', 'or'], ['l', 'd'], ['Ġwor', 'ld']];
function byteLevelJson() {
  const vocab = Object.fromEntries(BYTE_CHARS.map((c, i) => [c, i]));
  for (const [a, b] of MERGES) vocab[a + b] ??= Object.keys(vocab).length;
  vocab['<|endoftext|>'] = Object.keys(vocab).length;
  return {
    version: '1.0', added_tokens: [{ id: vocab['<|endoftext|>'], content: '<|endoftext|>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false, byte_fallback: false,
      ignore_merges: false, vocab, merges: MERGES.map(([a, b]) => `${a} ${b}`) },
  };
}
/** GPT-2's encoder, plainly: split with its regex, bytes to characters, merge the lowest-ranked pair until none is left. */
function plainByteLevelBpe(text, vocab) {
  const rank = new Map(MERGES.map(([a, b], i) => [`${a} ${b}`, i]));
  const words = text.match(/'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu) ?? [];
  const out = [];
  for (const w of words) {
    let parts = [...new TextEncoder().encode(w)].map((b) => BYTE_CHARS[b]);
    for (;;) {
      let best = -1;
      for (let i = 0; i + 1 < parts.length; i++) {
        const r = rank.get(`${parts[i]} ${parts[i + 1]}`);
        if (r !== undefined && (best < 0 || r < rank.get(`${parts[best]} ${parts[best + 1]}`))) best = i;
      }
      if (best < 0) break;
      parts = [...parts.slice(0, best), parts[best] + parts[best + 1], ...parts.slice(best + 2)];
    }
    out.push(...parts.map((p) => vocab[p]));
  }
  return out;
}

test('a byte-level BPE tokenizer.json gives the ids of a plain GPT-2 encoder written here', async () => {
  const json = byteLevelJson();
  const tok = await createHfTokenizer(json);
  for (const t of [...TEXTS, 'the world in the other world', 'Then  theworld\n\nthe the']) {
    expect([t.slice(0, 30), Array.from(tok.encode(t))]).toEqual([t.slice(0, 30), plainByteLevelBpe(t, json.model.vocab)]);
    expect(tok.decode(tok.encode(t))).toBe(t);
  }
  expect(Array.from(tok.encode(' the world'))).toEqual([json.model.vocab['Ġthe'], json.model.vocab['Ġworld']]);
  expect(tok.vocabSize).toBe(Object.keys(json.model.vocab).length);
});

test('a vocabulary of Qwen2\'s size (151,936 tokens) is read: its ids are never spread into one call (V8\'s stack overflowed)', async () => {
  const json = byteLevelJson();
  const vocab = { ...json.model.vocab };
  for (let i = Object.keys(vocab).length; i < 151936; i++) vocab[`<extra ${i}>`] = i;
  const tok = await createHfTokenizer({ ...json, model: { ...json.model, vocab } });
  expect(tok.vocabSize).toBe(151936);
  expect(Array.from(tok.encode(' the world'))).toEqual([vocab['Ġthe'], vocab['Ġworld']]);
});

test('hostile tokenizer files are refused with a TypeError or RangeError naming the file', async () => {
  const good = byteLevelJson();
  const cases = [
    ['{"model":', RangeError, /^tokenizer.json is not valid JSON/],
    [[], TypeError, /^tokenizer.json must be a JSON object/],
    [{ ...good, model: null }, TypeError, /^tokenizer.json: model must be an object/],
    [{ ...good, model: { ...good.model, type: 'Magic' } }, RangeError, /^tokenizer.json: model.type must be one of BPE, WordPiece, Unigram \(got "Magic"\)/],
    [{ ...good, model: { ...good.model, vocab: { a: -1 } } }, RangeError, /model.vocab must give every token an integer id in \[0, 2\^24\) \(got -1\)/],
    [{ ...good, model: { ...good.model, vocab: {} } }, RangeError, /got "no tokens"/],
    [{ ...good, model: { ...good.model, merges: 'a b' } }, TypeError, /model.merges must be a list/],
    [{ ...good, pre_tokenizer: { type: 'Split', pattern: { Regex: '[' }, behavior: 'Isolated', invert: false } }, RangeError, /^tokenizer.json could not (be read as a tokenizer|encode the text): /],
    [{ ...good, __proto__: null, ['__proto__']: 1 }, RangeError, /__proto__/],
  ];
  for (const [json, type, re] of cases) {
    let err;
    try {
      (await createHfTokenizer(json)).encode('the world');
    } catch (e) {
      err = e;
    }
    expect([re.source, err?.constructor]).toEqual([re.source, type]);
    expect(err.message).toMatch(re);
    expect(err.message).not.toMatch(/\n/);
  }
  const tok = await createHfTokenizer(good);
  expect(() => tok.encode(42)).toThrow(TypeError);
});

const SEED = process.env.POSENC_FUZZ_SEED === 'random' ? (Math.random() * 2 ** 32) >>> 0 : Number(process.env.POSENC_FUZZ_SEED ?? 0x70c);
test(`1500 mutated tokenizer files: a named TypeError/RangeError, or ids within the vocabulary (seed ${SEED})`, async () => {
  const rnd = mulberry32(SEED);
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = (a) => a[int(0, a.length - 1)];
  const hostile = () => pick([null, -1, 2 ** 40, 0.5, NaN, '', 'x', [], {}, [1, 'a'], { type: 'BPE' }, true, 'BPE', 'Ġ t', ['Ġ t', 7]]);
  const tally = { ok: 0, refused: 0 };
  for (let i = 0; i < 1500; i++) {
    const json = byteLevelJson();
    for (let m = int(1, 3); m > 0; m--) {
      const where = pick([json, json.model, json.model, json.pre_tokenizer, json.decoder, json.added_tokens?.[0]]);
      if (!where || typeof where !== 'object') continue;
      const keys = Object.keys(where);
      if (rnd() < 0.3) delete where[pick(keys)];
      else if (rnd() < 0.5) where[pick(keys)] = hostile();
      else if (rnd() < 0.5 && Array.isArray(json.model?.merges)) json.model.merges.splice(int(0, json.model.merges.length), 0, pick(['a', 'Ġ', 'x y z', '', 'he Ġ']));
      else if (json.model?.vocab && typeof json.model.vocab === 'object') json.model.vocab[pick(['zz', 'Ġthe', 'h', '<|endoftext|>'])] = hostile();
    }
    let ids;
    try {
      ids = (await createHfTokenizer(rnd() < 0.1 ? JSON.stringify(json).slice(0, int(0, 2000)) : json)).encode('the world, 日本 🙂');
    } catch (e) {
      if (!(e instanceof TypeError || e instanceof RangeError)) throw new Error(`case ${i}: ${e?.constructor?.name}: ${e?.message}`);
      expect(e.message).not.toMatch(/\n/);
      tally.refused++;
      continue;
    }
    tally.ok++;
    expect(ids).toBeInstanceOf(Int32Array);
    expect(ids.every((id) => Number.isInteger(id) && id >= 0)).toBe(true);
  }
  expect(tally.ok).toBeGreaterThan(100);
  expect(tally.refused).toBeGreaterThan(100);
});
