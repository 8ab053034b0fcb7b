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
