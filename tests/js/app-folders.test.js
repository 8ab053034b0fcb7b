// The page's folders as the README names them: web/app/ has one folder per part of the page, the README's layer
// list names exactly those folders, only the page's entry module sits beside them, and the Worker starter
// (shared/workers.js) knows no kind of Worker (each kind declares itself beside its code).
import { readFileSync, readdirSync } from 'node:fs';

const app = new URL('../../web/app/', import.meta.url);
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The folders the README's "Page and component" item names as `name/`, beside `web/app/` itself. */
function readmeFolders(text) {
  const item = text.match(/\n4\. \*\*Page and component\*\*[^]*?(?=\n\d\. \*\*)/)?.[0] ?? '';
  const part = item.match(/`web\/app\/` has a folder\s+per part of the page:([^]*?)\. The sweep/)?.[1] ?? '';
  return [...part.matchAll(/`([a-z-]+)\/`/g)].map((m) => m[1]).sort();
}

const folders = () => readdirSync(app, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();

test('the README names every folder of web/app/, and no other', () => {
  expect(readmeFolders(readme).length).toBeGreaterThan(3);
  expect(readmeFolders(readme)).toEqual(folders());
});

test('mutation: a README that leaves a folder out, or names one that is not there, fails the check', () => {
  expect(readme).toMatch(/`rope\/` \(/);
  expect(readme).toMatch(/`shared\/`\s+\(/);
  expect(readmeFolders(readme.replace(/`rope\/` \(/, 'rope ('))).not.toEqual(folders());
  expect(readmeFolders(readme.replace(/`shared\/`(\s+)\(/, '`common/`$1('))).not.toEqual(folders());
});

test('only the page\'s entry module sits at the top of web/app/', () => {
  const top = readdirSync(app).filter((f) => /\.m?js$/.test(f));
  expect(top).toEqual(['main.js']);
});

test('the Worker starter imports no kind of Worker: each kind declares its script and handler beside its code', () => {
  const src = readFileSync(new URL('shared/workers.js', app), 'utf8');
  const imports = [...src.matchAll(/^import [^;]*? from '([^']+)'/gm)].map((m) => m[1]);
  expect(imports).toEqual([]);
  for (const [file, kind] of [['lab/sweep-kind.js', 'sweep'], ['lab/train-kind.js', 'train'], ['lm/kind.js', 'lm']]) {
    const decl = readFileSync(new URL(file, app), 'utf8');
    expect(decl).toMatch(new RegExp(`kind: '${kind}'`));
    expect(decl).toMatch(/script: \(\) => new URL\('[^']+', import\.meta\.url\)/); // a literal, which bundlers copy
  }
});

// The core's folders as the README's "C++ core" item names them: cpp/src/ has one folder per concern, and at its top
// only the files every folder reads, which the item names too.
const src = new URL('../../cpp/src/', import.meta.url);

/** The folders (`name/`) and top files (`name.cpp`, `name.hpp`) the README's "C++ core" item names for cpp/src/. */
function readmeCore(text) {
  const item = text.match(/\n1\. \*\*C\+\+ core\*\*[^]*?(?=\n\d\. \*\*)/)?.[0] ?? '';
  const part = item.match(/`cpp\/src\/` has a folder per\s+concern:([^]*?)\. Kernels/)?.[1] ?? '';
  return {
    folders: [...part.matchAll(/`([a-z_]+)\/`/g)].map((m) => m[1]).sort(),
    files: [...part.matchAll(/`([a-z_]+\.[ch]pp)`/g)].map((m) => m[1]).sort(),
  };
}
const core = () => {
  const entries = readdirSync(src, { withFileTypes: true });
  return { folders: entries.filter((d) => d.isDirectory()).map((d) => d.name).sort(),
    files: entries.filter((d) => d.isFile()).map((d) => d.name).sort() };
};

test('the README names every folder of cpp/src/ and every file at its top, and no other', () => {
  expect(readmeCore(readme).folders.length).toBeGreaterThan(3);
  expect(readmeCore(readme)).toEqual(core());
  // mutations: a folder left out, a file named that is not there
  expect(readmeCore(readme.replace('`tasks/` (', 'tasks ('))).not.toEqual(core());
  expect(readmeCore(readme.replace('`kind_table.hpp`', '`kind_table.hpp`, `tables.cpp`'))).not.toEqual(core());
});
