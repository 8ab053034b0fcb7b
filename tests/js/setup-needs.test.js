// What each npm command installs is one table (scripts/needs.json): scripts/setup.sh reads it, the README's
// setup table is generated from it, and every npm script that runs setup.sh names a need of it and is listed there.
import { readFileSync } from 'node:fs';
import { NEEDS, setupTable } from '../../scripts/readme-setup.js';

const read = (p) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');
const scripts = JSON.parse(read('package.json')).scripts;
const ids = NEEDS.map((n) => n.id);

test('the README shows the generated setup table', () => {
  expect(read('README.md')).toContain(setupTable());
});

test('every npm script that runs setup.sh names a need, and that need lists the script', () => {
  const calls = Object.entries(scripts).flatMap(([name, cmd]) =>
    [...cmd.matchAll(/setup\.sh (\w+)/g)].map((m) => [name, m[1]]));
  expect(calls.length).toBeGreaterThan(3);
  for (const [name, need] of calls) {
    expect(ids).toContain(need);
    const command = name === 'start' || name === 'test' ? `npm ${name}` : `npm run ${name}`;
    expect([name, NEEDS.find((n) => n.id === need).commands]).toEqual([name, expect.arrayContaining([command])]);
  }
  // npm start needs neither the test browsers nor PyTorch
  const start = NEEDS.slice(0, ids.indexOf(calls.find(([n]) => n === 'start')[1]) + 1).flatMap((n) => n.debian);
  for (const p of ['chromium', 'firefox-esr', 'python3-torch', 'clang-14']) expect(start).not.toContain(p);
});

test('setup.sh keeps no second list of packages', () => {
  // (a line naming two or more of the packages would be a list: the build commands name one tool each)
  const names = NEEDS.flatMap((n) => n.debian);
  const esc = (p) => p.replace(/[.+]/g, '\\$&');
  const lists = read('scripts/setup.sh').split('\n').filter((l) => !l.trim().startsWith('#'))
    .filter((l) => names.filter((p) => new RegExp(`(^|[\\s('"])${esc(p)}($|[\\s)'"])`).test(l)).length > 1);
  expect(lists).toEqual([]);
  expect(read('scripts/setup.sh')).toContain('scripts/needs.json');
});

// The committed texts that restate the core's tables (the declarations' generated parts, the README's generated blocks)
// are rewritten by a developer's `npm run generate`, not by every setup: serving reads none of them, and their tests
// (registry, readme-registry, this file's first test) fail when they drift instead of being mended on the quiet.
const GENERATORS = ['scripts/declarations.js', 'scripts/readme-lists.js', 'scripts/readme-setup.js'];
const code = (text) => text.split('\n').filter((l) => !/^\s*(#|\/\/)/.test(l)).join('\n');
const runsGenerator = (text) => GENERATORS.filter((g) => code(text).includes(g.replace('scripts/', '')));

test('npm start runs no generator of committed files; npm run generate runs each, to write', () => {
  for (const f of ['scripts/setup.sh', 'scripts/registry.js', 'scripts/serve.js', 'scripts/passage.js'])
    expect([f, runsGenerator(read(f))]).toEqual([f, []]);
  for (const g of GENERATORS) expect(scripts.generate).toContain(`node ${g} --write`);
  // and the check sees the setup that ran them
  expect(runsGenerator('node scripts/registry.js\nnode scripts/readme-lists.js --write || echo "by hand" >&2')).toEqual(['scripts/readme-lists.js']);
  expect(runsGenerator("import { writeDeclarations } from './declarations.js';")).toEqual(['scripts/declarations.js']);
});
