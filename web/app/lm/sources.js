// Where a language model's files come from, for "Your model, past its context": the suggested public models,
// the plan of what to fetch for a list of addresses (a Hugging Face repository, a GGUF, a llama2.c .bin and
// its tokenizer, a .safetensors file and its config.json and tokenizer.json), and which dropped file is which.
// Pure: no fetching here (fetch.js) and no DOM. A file's name only plans what to fetch beside it: the library
// recognises the model file by its content. The formats and their extensions are the core's (MODEL_FORMATS).
import { MODEL_FORMATS } from '../../lib/index.js';

const HF = 'https://huggingface.co';

/** Public models to try, with the addresses the page fetches (the reader's browser fetches them from Hugging Face). */
export const SUGGESTED = [
  { name: 'stories260K', what: 'llama2.c .bin and its 512-token tokenizer, 1.1 MB, context 512 (karpathy/tinyllamas)',
    urls: [`${HF}/karpathy/tinyllamas/resolve/main/stories260K/stories260K.bin`, `${HF}/karpathy/tinyllamas/resolve/main/stories260K/tok512.bin`] },
  { name: 'stories260K GGUF', what: 'the same weights as a GGUF with its tokenizer inside, 1.2 MB (ggml-org/models); its file says context 2,048, ' +
    'its converter\'s default, so the page asks for the one it was trained at',
    urls: [`${HF}/ggml-org/models/resolve/main/tinyllamas/stories260K.gguf`] },
  { name: 'stories15M', what: 'llama2.c .bin, 60 MB, context 256 (karpathy/tinyllamas); it needs llama2.c\'s 32,000-token tokenizer.bin, ' +
    'which is not on Hugging Face: download it from the llama2.c repository and drop both files',
    urls: [`${HF}/karpathy/tinyllamas/resolve/main/stories15M.bin`], needs: 'tokenizer.bin' },
  { name: 'SmolLM2-135M', what: 'safetensors with config.json and tokenizer.json, 270 MB, context 8,192 (HuggingFaceTB)',
    urls: [`${HF}/HuggingFaceTB/SmolLM2-135M`] },
  { name: 'Llama 3.2 1B Q4_K_M', what: 'GGUF, Q4_K with some Q6_K tensors, 0.8 GB, context 131,072 (bartowski, from Meta\'s Llama-3.2-1B-Instruct)',
    urls: [`${HF}/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf`] },
  { name: 'Qwen2.5 0.5B Q4_K_M', what: 'GGUF, Q4_K with some Q6_K tensors, 0.5 GB, context 32,768 (Qwen\'s own)',
    urls: [`${HF}/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf`] },
  { name: 'Qwen3 0.6B Q4_K_M', what: 'GGUF, Q4_K with some Q6_K tensors, 0.5 GB, context 40,960 (bartowski, from Qwen3-0.6B)',
    urls: [`${HF}/bartowski/Qwen_Qwen3-0.6B-GGUF/resolve/main/Qwen_Qwen3-0.6B-Q4_K_M.gguf`] },
  { name: 'OLMo 2 1B Q4_K_M', what: 'GGUF, Q4_K with some Q6_K tensors, 0.9 GB, context 4,096 (Ai2\'s own, from OLMo-2-0425-1B-Instruct)',
    urls: [`${HF}/allenai/OLMo-2-0425-1B-Instruct-GGUF/resolve/main/OLMo-2-0425-1B-Instruct-Q4_K_M.gguf`] },
  { name: 'Gemma 3 270M', what: 'safetensors (BF16) with config.json and tokenizer.json, 0.5 GB, context 32,768 (unsloth\'s copy of Google\'s ' +
    'gemma-3-270m-it, which needs no sign-in)',
    urls: [`${HF}/unsloth/gemma-3-270m-it`] },
];

/** The format a file's name suggests (its row of MODEL_FORMATS), or null; formatOfName gives its id. */
const formatRowOfName = (name) => MODEL_FORMATS.find((f) => name.toLowerCase().endsWith(f.extension)) ?? null;
const formatOfName = (name) => formatRowOfName(name)?.id ?? null;
// The files of a Hugging Face folder beside a model whose config is config.json: [role, name, optional].
const HF_SIBLINGS = [['config', 'config.json', false], ['tokenizer', 'tokenizer.json', true], ['tokenizerConfig', 'tokenizer_config.json', true]];
const named = MODEL_FORMATS.map((f) => `a ${f.extension} (${f.label})`);
const formatList = `${named.slice(0, -1).join(', ')} or ${named[named.length - 1]} file`;

const baseName = (u) => decodeURIComponent(new URL(u, 'https://x.invalid/').pathname.split('/').pop() ?? '');
const sibling = (u, name) => new URL(name, new URL(u, 'https://x.invalid/')).href.replace(/^https:\/\/x\.invalid/, '');

/** A Hugging Face repository's address (https://huggingface.co/owner/name, optionally /tree/rev): {repo, rev} or null. */
export function hfRepo(u) {
  let url;
  try {
    url = new URL(u);
  } catch {
    return null;
  }
  if (url.origin !== HF) return null;
  const m = url.pathname.match(/^\/([\w.-]+)\/([\w.-]+)(?:\/tree\/([\w.-]+))?\/?$/);
  return m ? { repo: `${m[1]}/${m[2]}`, rev: m[3] ?? 'main' } : null;
}

/**
 * What to fetch for `urls` (the state's modelUrl): [{role, url, optional}], in the order to fetch them (small files
 * first). Roles are loadLanguageModel's: model, tokenizer, config, tokenizerConfig, index ('shards' follow from the
 * index). Throws a RangeError naming the problem when the addresses do not make a model.
 */
export function fetchPlan(urls) {
  if (!urls.length) throw new RangeError('no model address was given');
  const repo = hfRepo(urls[0]);
  if (repo) {
    if (urls.length > 1) throw new RangeError('a Hugging Face repository address stands alone: give it, or the files\' own addresses');
    const r = (f) => `${HF}/${repo.repo}/resolve/${repo.rev}/${f}`;
    return [{ role: 'config', url: r('config.json') }, { role: 'tokenizer', url: r('tokenizer.json'), optional: true },
      { role: 'tokenizerConfig', url: r('tokenizer_config.json'), optional: true },
      { role: 'index', url: r('model.safetensors.index.json'), optional: true, orElse: { role: 'model', url: r('model.safetensors') } }];
  }
  const [first, ...rest] = urls;
  // What to fetch beside the model follows from its format's row: the Hugging Face folder's files for a format whose
  // config is config.json, else the files its row takes (its inputs), given by address; none for a file that
  // carries everything.
  const name = baseName(first).toLowerCase(), format = formatRowOfName(name);
  const extra = rest.map((u) => ({ role: roleOfName(baseName(u), 'tokenizer'), url: u }));
  if (format?.configJson || name.endsWith('.index.json')) {
    const given = new Set(extra.map((f) => f.role));
    const siblings = HF_SIBLINGS.filter(([role]) => !given.has(role)).map(([role, f, optional]) => ({ role, url: sibling(first, f), optional }));
    return [...siblings, ...extra, { role: name.endsWith('.index.json') ? 'index' : 'model', url: first }];
  }
  if (format) {
    const takes = format.inputs ? format.inputs.split(',') : [];
    if (!takes.length && rest.length) throw new RangeError(`a ${format.shortName} file carries its own tokenizer: give only its address`);
    if (extra.length > takes.length || extra.some((f) => !takes.includes(f.role)))
      throw new RangeError(`a ${format.shortName} takes ${takes.length === 1 ? 'one more address' : `${takes.length} more addresses`}: its ${takes.join(', ')}`);
    return [...extra, { role: 'model', url: first }];
  }
  // A name that says nothing (an address with no extension, a renamed file): fetched alone, its content decides.
  if (!rest.length) return [{ role: 'model', url: first }];
  throw new RangeError(`${baseName(first) || first} is not named as a model file posenc reads (${formatList}, or a Hugging Face repository address): give its address alone, or the model file's first`);
}

/** The role of a file by its name: config.json, tokenizer.json, tokenizer_config.json, *.index.json, *.gguf, *.safetensors, *.bin. */
export function roleOfName(name, bin = 'model') {
  const n = name.toLowerCase();
  if (n === 'config.json') return 'config';
  if (n === 'tokenizer_config.json') return 'tokenizerConfig';
  if (n === 'tokenizer.json') return 'tokenizer';
  if (n.endsWith('.index.json')) return 'index';
  const format = formatOfName(n);
  if (format === 'llama2c') return /^tok/.test(n) ? 'tokenizer' : bin; // (a llama2.c tokenizer is a .bin too)
  return format ? 'model' : null;
}

/**
 * Dropped or picked files ([{name, size}], File objects) as loadLanguageModel's roles: {roles: {role: file}, shards:
 * [file], ignored: [name]}. Two .bin files: the tokenizer is the one whose name starts with "tok", else the smaller.
 * One file whose name says nothing is taken as the model (the library reads its format from its content).
 */
export function classifyFiles(files) {
  const roles = {}, shards = [], ignored = [];
  const bins = files.filter((f) => formatOfName(f.name) === 'llama2c');
  const tokBin = bins.length === 2 ? (bins.find((f) => /^tok/i.test(f.name)) ?? [...bins].sort((a, b) => a.size - b.size)[0]) : null;
  const safetensors = files.filter((f) => formatOfName(f.name) === 'safetensors');
  for (const f of files) {
    let role = f === tokBin ? 'tokenizer' : bins.includes(f) ? (tokBin ? 'model' : roleOfName(f.name)) : roleOfName(f.name);
    if (role === 'model' && safetensors.length > 1 && safetensors.includes(f)) role = 'shard';
    if (role === 'shard') shards.push(f);
    else if (role && !roles[role]) roles[role] = f;
    else ignored.push(f.name);
  }
  if (shards.length && !roles.index) throw new RangeError(`${shards.length} .safetensors files but no model.safetensors.index.json to say which tensor is in which: drop it too`);
  if (!roles.model && !roles.index && files.length === 1) return { roles: { model: files[0] }, shards, ignored: [] }; // its content decides
  if (!roles.model && !roles.index) {
    const what = files.length ? files.map((f) => f.name).join(', ') : 'nothing';
    throw new RangeError(`no model file among ${what}: drop ${formatList} (a .bin with its tokenizer.bin; safetensors with config.json and tokenizer.json)`);
  }
  return { roles, shards, ignored };
}
