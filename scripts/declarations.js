// The parts of the TypeScript declarations (types/*.d.ts) that restate the core's tables, written from the tables the
// module exports: the encodings, the model-config schema (ModelOptions, its doc comments included), the RoPE scaling
// types, the model file formats. Each part sits between a `// generated:<name> ...` line and an `// end:<name>` line.
// `node scripts/declarations.js` checks the committed files against the tables of the built module (web/wasm/registry.js;
// exit 1 naming the files that differ), `--write` rewrites them: `npm run generate` runs it, never `npm start`, whose
// serving reads no declaration. tests/js/registry.test.js fails when the committed files differ from what the tables give.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const DECLARATION_FILES = ['types/posenc.d.ts', 'types/explorer.d.ts'];
const quote = (s) => `'${s}'`;
const union = (names) => names.map(quote).join(' | ');
// The exported TypeScript name of a choice field's values; a choice not named here is written as its union.
const CHOICE_TYPES = { encoding: 'Encoding', ropeLayout: 'RopeLayout', learnedPolicy: 'OutOfRangePolicy' };
const POWERS = new Map([[2 ** 20, '2^20'], [2 ** 53 - 1, '2^53-1'], [1e6, '10^6']]);
const shown = (x) => POWERS.get(x) ?? String(x);

// A config field's range, in the words the declarations use.
function range(f) {
  if (f.type === 'int' || f.type === 'uint64') return `int [${shown(f.min)}, ${shown(f.max)}]`;
  if (f.type === 'float') return `finite, ${f.minExclusive ? '>' : '>='} ${shown(f.min)}${Number.isFinite(f.max) ? ` and <= ${shown(f.max)}` : ''}`;
  return '';
}

// The encodings that read a field: those whose registry row lists it (a field none lists belongs to every model).
function modelOption(f, encodings) {
  const readers = encodings.filter((e) => e.fields.split(',').includes(f.name)).map((e) => e.name);
  const applies = readers.length ? `${readers.map(quote).join(', ')}${readers.length === 1 ? ' only' : ''}` : '';
  const words = [f.doc, range(f)].filter(Boolean).join(', ');
  const dflt = f.required ? '' : `@default ${f.type === 'choice' ? quote(f.choices[f.default]) : f.default}`;
  const type = f.type === 'choice' ? CHOICE_TYPES[f.name] ?? union(f.choices) : 'number';
  const said = applies && words ? `${applies}: ${words}` : applies || (f.doc ? words[0].toUpperCase() + words.slice(1) : words);
  const text = [said && `${said}.`, dflt].filter(Boolean).join(' ');
  return [`  /** ${text} */`, `  ${f.name}${f.required ? '' : '?'}: ${type};`];
}

/** Each generated part's lines, by name, from the module's tables. */
export function generatedParts({ encodings, schema, ropeScaling, modelFormats }) {
  const names = encodings.map((e) => e.name);
  const choices = (name) => schema.find((f) => f.name === name).choices;
  return {
    encoding: [`export type Encoding = ${union(names)};`],
    encodings: [`export declare const ENCODINGS: readonly [${names.map(quote).join(', ')}];`],
    'rope-type': [`export type RopeType = ${union(ropeScaling.types.map((t) => t.name))};`],
    'rope-layout': [`export type RopeLayout = ${union(choices('ropeLayout'))};`],
    'out-of-range': [`export type OutOfRangePolicy = ${union(choices('learnedPolicy'))};`],
    'model-format': [`export type ModelFormatId = ${union(modelFormats.map((f) => f.id))};`],
    'model-options': schema.flatMap((f) => modelOption(f, encodings)),
    'explorer-scaling': [`export type ExplorerRopeScaling = ${union(['none', ...ropeScaling.types.filter((t) => t.page).map((t) => t.name)])};`],
  };
}

/** `text` with each generated part replaced by `parts`' lines; throws on a part's markers missing or unknown. */
export function withParts(text, parts) {
  const lines = text.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
    const m = lines[i].match(/^\s*\/\/ generated:([\w-]+)/);
    if (!m) continue;
    if (!parts[m[1]]) throw new Error(`no generated part named ${m[1]}`);
    const end = lines.findIndex((l, j) => j > i && l.trim() === `// end:${m[1]}`);
    if (end < 0) throw new Error(`generated:${m[1]} has no end:${m[1]} line`);
    out.push(...parts[m[1]], lines[end]);
    i = end;
  }
  return out.join('\n');
}

/** Rewrites the declaration files under `root` (a URL or path ending in '/') whose parts differ; returns those written. */
export function writeDeclarations(root, tables) {
  const parts = generatedParts(tables);
  const written = [];
  for (const f of DECLARATION_FILES) {
    const path = new URL(f, root);
    const text = readFileSync(path, 'utf8');
    const next = withParts(text, parts);
    if (next !== text) {
      writeFileSync(path, next);
      written.push(f);
    }
  }
  return written;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { ENCODING_INFO, CONFIG_SCHEMA, ROPE_SCALING_SCHEMA, MODEL_FORMATS } = await import('../web/wasm/registry.js');
  const tables = { encodings: ENCODING_INFO, schema: CONFIG_SCHEMA, ropeScaling: ROPE_SCALING_SCHEMA, modelFormats: MODEL_FORMATS };
  const root = new URL('../', import.meta.url);
  if (process.argv.includes('--write')) {
    for (const f of writeDeclarations(root, tables)) console.log(`posenc: ${f} follows the core's tables again`);
  } else {
    const parts = generatedParts(tables);
    const stale = DECLARATION_FILES.filter((f) => {
      const text = readFileSync(new URL(f, root), 'utf8');
      return withParts(text, parts) !== text;
    });
    for (const f of stale) console.error(`${f} does not restate the core's tables as they are: run npm run generate`);
    process.exit(stale.length ? 1 : 0);
  }
}
