// The TypeScript declarations (types/*.d.ts, shipped as dist/*.d.ts; the parts that list the core's tables are
// written by scripts/registry.js, tests/js/registry.test.js)
// against tsc and against the running library:
//  - examples/typescript type-checks, including errors.ts, whose `@ts-expect-error`
//    lines fail the run if the types become too loose;
//  - a wrong call does fail tsc (so the check above can fail);
//  - every exported name, API function, Model/Task member, result field, option key
//    and allowed value that the library has at run time is declared, and nothing more;
//  - usage.ts, compiled to JavaScript, runs against the library.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as library from '../../web/lib/index.js';
import { TASK_KEYS } from '../../web/lib/tasks.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const project = join(root, 'examples/typescript');
const PROBE = '__probe__';

// TypeScript 7's `tsc` is a native binary behind a small Node launcher.
function tsc(...args) {
  const r = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--pretty', 'false', ...args], {
    cwd: root, encoding: 'utf8', timeout: 120000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}

// A throwaway project that inherits the examples' settings and path mapping.
function scratchProject(files) {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-types-'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    extends: join(project, 'tsconfig.json'),
    include: ['*.ts', join(root, 'types/*.d.ts')],
  }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('examples/typescript type-checks against types/ (usage, explorer, and the @ts-expect-error lines of errors.ts)', () => {
  const r = tsc('-p', project);
  expect(r.output).toBe('');
  expect(r.status).toBe(0);
  // errors.ts must really hold wrong calls: every directive is used (tsc reports unused ones).
  const directives = readFileSync(join(project, 'errors.ts'), 'utf8').match(/^\s*\/\/ @ts-expect-error/gm);
  expect(directives.length).toBeGreaterThanOrEqual(40);
});

test('wrong calls fail tsc with a message naming the problem', () => {
  const { dir, cleanup } = scratchProject({
    'wrong.ts': [
      "import { loadPosenc } from 'posenc';",
      'const pe = await loadPosenc();',
      'pe.applyRope(new Float32Array(8), { length: 1, dim: 8, rotary_dim: 4 });',
      "pe.ropeFrequencies({ dim: 8, scaling: { rope_type: 'linear' } });",
      "document.createElement('posenc-explorer').trainLength = 100;",
    ].join('\n'),
  });
  try {
    const r = tsc('-p', dir);
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/wrong\.ts\(3,\d+\): error TS2561: .*'rotary_dim' does not exist.*'rotaryDim'/);
    expect(r.output).toMatch(/wrong\.ts\(4,\d+\): error TS\d+: [^]*Property 'factor' is missing/);
    expect(r.output).toMatch(/wrong\.ts\(5,\d+\): error TS2322: Type '100' is not assignable/);
  } finally {
    cleanup();
  }
});

// --- what the library has at run time ---------------------------------------

// The keys an options object may have, read from the library's own unknown-key error.
async function allowedKeys(call) {
  try {
    await call({ [PROBE]: 1 });
  } catch (e) {
    const m = /unknown option ['"]__probe__['"]: allowed (.*)$/.exec(e.message);
    if (m) return m[1].split(', ');
    throw e;
  }
  throw new Error('no unknown-option error');
}

// The values a string option may have, read from the library's own error ("must be one of 'a', 'b' (got …)").
async function allowedValues(call) {
  try {
    await call(PROBE);
  } catch (e) {
    const m = /must be one of (.*?) \(got/.exec(e.message);
    if (m) return [...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1]);
    throw e;
  }
  throw new Error('no one-of error');
}

const methodNames = (obj) => Object.getOwnPropertyNames(Object.getPrototypeOf(obj)).filter((k) => k !== 'constructor');

// [name, TypeScript type whose keys (or members) must be exactly the runtime set, runtime list]
async function runtimeFacts() {
  const pe = await library.loadPosenc();
  const x = new Float32Array(8);
  const model = pe.createModel({ vocabSize: 11, maxLength: 8, dModel: 16, heads: 2, layers: 1 });
  const task = pe.createTask({ symbols: 4 });
  const tokens = new Int32Array(8).fill(3), targets = new Int32Array(8).fill(4);
  const progress = [];
  // Llama 4 Scout's shape: a RoPE and a NoPE layer type (their keys together)
  const fromConfig = pe.ropeFromConfig({ model_type: 'llama4_text', head_dim: 8, num_hidden_layers: 4, max_position_embeddings: 64,
    rope_scaling: { rope_type: 'llama3', factor: 2, low_freq_factor: 1, high_freq_factor: 1, original_max_position_embeddings: 32 } });
  const trained = await pe.train(model, { steps: 1, batch: 1, length: 8, symbols: 4, onProgress: (p) => progress.push(p) });
  const facts = [
    // names
    ['module exports', 'keyof typeof M', Object.keys(library)],
    ['API object', 'keyof P.Posenc', Object.keys(pe)],
    ['Model members', 'keyof P.Model', [...methodNames(model), ...Object.keys(model)]],
    ['Model.config', 'keyof P.ModelConfig', Object.keys(model.config)],
    ['Model.lastStep', 'keyof P.TrainStepStats', Object.keys(model.lastStep)],
    ['Task members', 'keyof P.Task', Object.keys(task)],
    // results
    ['ropeFrequencies result', "keyof ReturnType<P.Posenc['ropeFrequencies']>", Object.keys(pe.ropeFrequencies({ dim: 4 }))],
    ['ropeFromConfig result', "keyof ReturnType<P.Posenc['ropeFromConfig']>", Object.keys(fromConfig)],
    ['ropeFromConfig layer type', 'keyof P.RopeLayerType', fromConfig.layerTypes.flatMap((l) => Object.keys(l))],
    ['ropeFromConfig pair', 'keyof P.RopePair', Object.keys(fromConfig.layerTypes[0].pairs[0])],
    ['ropeFromConfig regimes', 'keyof P.RopeLayerType["counts"]', Object.keys(fromConfig.layerTypes[0].counts)],
    ['taskInfo result', "keyof ReturnType<P.Posenc['taskInfo']>", Object.keys(pe.taskInfo({}))],
    ['sample result', "keyof ReturnType<P.Task['sample']>", Object.keys(task.sample({ length: 8 }))],
    ['forward result', "keyof ReturnType<P.Model['forward']>", Object.keys(model.forward(tokens, { length: 8 }))],
    ['evaluate result', "keyof ReturnType<P.Model['evaluate']>", Object.keys(model.evaluate(tokens, targets, { length: 8 }))],
    ['train result', 'keyof P.TrainResult', Object.keys(trained)],
    ['train progress', 'keyof P.TrainProgress', Object.keys(progress[0])],
    // option keys
    ['sinusoidal options', "Keys<Opt<P.Posenc['sinusoidal']>>", await allowedKeys((o) => pe.sinusoidal(o))],
    ['ropeFrequencies options', "Keys<Opt<P.Posenc['ropeFrequencies']>>", await allowedKeys((o) => pe.ropeFrequencies(o))],
    ['ropeFromConfig options', "Keys<Opt2<P.Posenc['ropeFromConfig']>>", await allowedKeys((o) => pe.ropeFromConfig({ head_dim: 8 }, o))],
    ['applyRope options', "Keys<Opt2<P.Posenc['applyRope']>>", await allowedKeys((o) => pe.applyRope(x, o))],
    ['alibiBias options', "Keys<Opt<P.Posenc['alibiBias']>>", await allowedKeys((o) => pe.alibiBias(o))],
    ['t5Bucket options', "Keys<Opt2<P.Posenc['t5Bucket']>>", await allowedKeys((o) => pe.t5Bucket(1, o))],
    ['shawIndex options', "Keys<Opt<P.Posenc['shawIndex']>>", await allowedKeys((o) => pe.shawIndex(o))],
    ['learnedLookup options', "Keys<Opt2<P.Posenc['learnedLookup']>>", await allowedKeys((o) => pe.learnedLookup(x, o))],
    ['attention options', "Keys<Opt3<P.Posenc['attention']>>", await allowedKeys((o) => pe.attention(x, x, o))],
    ['rope_scaling keys', 'KeysOfUnion<P.RopeScaling>', await allowedKeys((o) => pe.ropeFrequencies({ dim: 4, scaling: o }))],
    ['createModel options', "Keys<Opt<P.Posenc['createModel']>>", await allowedKeys((o) => pe.createModel(o))],
    ['createTask options', "Keys<Opt<P.Posenc['createTask']>>", await allowedKeys((o) => pe.createTask(o))],
    ['taskInfo options', "Keys<Opt<P.Posenc['taskInfo']>>", await allowedKeys((o) => pe.taskInfo(o))],
    ['task options shared with train', 'keyof P.TaskConfig', TASK_KEYS],
    ['train options', "Keys<Opt2<P.Posenc['train']>>", await allowedKeys((o) => pe.train(model, o))],
    ['trainStep options', "Keys<Opt3<P.Model['trainStep']>>", await allowedKeys((o) => model.trainStep(tokens, targets, { length: 8, ...o }))],
    ['forward options', "Keys<Opt2<P.Model['forward']>>", await allowedKeys((o) => model.forward(tokens, { length: 8, ...o }))],
    ['evaluate options', "Keys<Opt3<P.Model['evaluate']>>", await allowedKeys((o) => model.evaluate(tokens, targets, { length: 8, ...o }))],
    ['sample options', "Keys<Opt<P.Task['sample']>>", await allowedKeys((o) => task.sample(o))],
    // allowed values
    ['loadPosenc build', "NonNullable<P.LoadOptions['build']>", await allowedValues((b) => library.loadPosenc({ build: b }))],
    ['sinusoidal layout', "NonNullable<P.SinusoidalOptions['layout']>", await allowedValues((l) => pe.sinusoidal({ length: 1, dim: 2, layout: l }))],
    ['sinusoidal spacing', "NonNullable<P.SinusoidalOptions['spacing']>", await allowedValues((s) => pe.sinusoidal({ length: 1, dim: 4, spacing: s }))],
    ['applyRope layout', "NonNullable<P.ApplyRopeOptions['layout']>", await allowedValues((l) => pe.applyRope(x, { length: 1, dim: 8, layout: l }))],
    ['rope_type', 'P.RopeType', await allowedValues((t) => pe.ropeFrequencies({ dim: 4, scaling: { rope_type: t } }))],
    ['learnedLookup outOfRange', "NonNullable<P.LearnedLookupOptions['outOfRange']>", await allowedValues((p) => pe.learnedLookup(x, { rows: 1, dim: 8, positions: [0], outOfRange: p }))],
    ['model encoding', 'P.Encoding', await allowedValues((e) => pe.createModel({ vocabSize: 11, encoding: e }))],
    ['model ropeLayout', "NonNullable<P.ModelOptions['ropeLayout']>", await allowedValues((l) => pe.createModel({ vocabSize: 11, ropeLayout: l }))],
    ['model learnedPolicy', "NonNullable<P.ModelOptions['learnedPolicy']>", await allowedValues((p) => pe.createModel({ vocabSize: 11, learnedPolicy: p }))],
    ['task', 'P.TaskName', await allowedValues((t) => pe.createTask({ task: t }))],
    ['build', "P.Posenc['build']", ['simd', 'scalar']],
  ];
  task.delete();
  model.delete();
  return facts;
}

// One line per fact: a Record over the declared keys, filled with the runtime keys.
// A key missing from the declarations is an excess property, a declared key the
// library does not have is a missing property; either fails tsc on that line.
function declarationCheck(facts) {
  const lines = [
    "import type * as P from 'posenc';",
    "import * as M from 'posenc';",
    // The options argument of a function (its last overload): the 1st, 2nd or 3rd parameter.
    'type Opt<F extends (...a: never[]) => unknown> = NonNullable<Parameters<F>[0]>;',
    'type Opt2<F extends (...a: never[]) => unknown> = NonNullable<Parameters<F>[1]>;',
    'type Opt3<F extends (...a: never[]) => unknown> = NonNullable<Parameters<F>[2]>;',
    // keyof never is every key, which would make a check vacuous: never gives no keys instead.
    'type Keys<T> = [T] extends [never] ? never : keyof T;',
    'type KeysOfUnion<T> = T extends unknown ? keyof T : never;',
    // The constants: the exact tuples, in order.
    `export const encodingsTuple: typeof M.ENCODINGS = ${JSON.stringify(library.ENCODINGS)};`,
    `export const tasksTuple: typeof M.TASKS = ${JSON.stringify(library.TASKS)};`,
    `export const ropeTypesTuple: typeof M.ROPE_TYPES = ${JSON.stringify(library.ROPE_TYPES)};`,
  ];
  const where = new Map();
  facts.forEach(([name, type, keys], i) => {
    where.set(lines.length + 1, name);
    const record = [...new Set(keys)].map((k) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: true`).join(', ');
    lines.push(`export const fact${i}: Record<${type}, true> = { ${record} }; // ${name}`);
  });
  return { text: `${lines.join('\n')}\n`, where };
}

function checkDeclarations(facts) {
  const { text, where } = declarationCheck(facts);
  const { dir, cleanup } = scratchProject({ 'declared.ts': text });
  try {
    const r = tsc('-p', dir);
    // Name the fact behind each error line, so a failure says what drifted.
    const explained = r.output.replace(/declared\.ts\((\d+),\d+\)/g, (m, line) => `${m} [${where.get(Number(line)) ?? 'constants'}]`);
    return { status: r.status, output: explained };
  } finally {
    cleanup();
  }
}

describe('declarations against the running library', () => {
  let facts;
  beforeAll(async () => {
    facts = await runtimeFacts();
  });

  test('every name, member, result field, option key and allowed value matches', () => {
    expect(facts.length).toBeGreaterThan(40);
    const r = checkDeclarations(facts);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  test('the comparison notices drift: an undeclared option key and a declared-but-missing method both fail', () => {
    const drifted = facts.map(([name, type, keys]) => {
      if (name === 'sinusoidal options') return [name, type, [...keys, 'phase']];
      if (name === 'API object') return [name, type, keys.filter((k) => k !== 'attention')];
      return [name, type, keys];
    });
    const r = checkDeclarations(drifted);
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/\[sinusoidal options\]: .*'phase' does not exist/);
    expect(r.output).toMatch(/\[API object\]: .*Property 'attention' is missing/);
  });
});

test('usage.ts, compiled to JavaScript, runs against the library', () => {
  const out = mkdtempSync(join(tmpdir(), 'posenc-usage-'));
  try {
    const r = tsc('-p', project, '--noEmit', 'false', '--outDir', out);
    expect(r.output).toBe('');
    const entry = pathToFileURL(join(root, 'web/lib/index.js')).href;
    const js = readFileSync(join(out, 'usage.js'), 'utf8').replace(/from 'posenc'/g, `from '${entry}'`);
    expect(js).toContain(entry);
    writeFileSync(join(out, 'usage.mjs'), js);
    const run = spawnSync(process.execPath, [join(out, 'usage.mjs')], { encoding: 'utf8', timeout: 60000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/attention row 3 sums to 1\.0000/);
    expect(run.stdout).toMatch(/bad input: dim must be an even integer/);
    expect(run.stdout).toMatch(/logits 352, attention 2048 = 1x2x32x32/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
