// The README's lists of encodings, tasks and defaults are the registry's and the state schema's
// (scripts/readme-lists.js generates or checks them), and the check fails when one of them drifts.
import { readFileSync } from 'node:fs';
import { expectedLines, missing, encodingsTable, packageInfoCurrent, packageInfoText } from '../../scripts/readme-lists.js';
import { cdnBase } from '../../web/app/lab/embed-snippet.js';
import { ENCODING_INFO } from '../../web/lib/index.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('README.md states the registry\'s encodings (all of them, by label and blurb), tasks and the schema\'s defaults', () => {
  expect(missing(readme).map(([what]) => what)).toEqual([]);
  for (const e of ENCODING_INFO) expect(encodingsTable()).toContain(`| \`${e.name}\` | ${e.label} |`);
  expect(readme).not.toMatch(/all seven|all 7\b/);
});

test('mutation: a README that lists seven encodings, or an old default, fails the check', () => {
  const [, attr] = expectedLines().find(([w]) => w === 'the encodings attribute');
  const old = readme.replace(attr, '| `encodings` | comma list of `none, sinusoidal, learned, t5, alibi, rope, shaw`, drawn in that order | all seven |');
  expect(missing(old).map(([w]) => w)).toEqual(['the encodings attribute']);
  const [, exp] = expectedLines().find(([w]) => w === 'the experiment attributes');
  expect(missing(readme.replace(exp, exp.replace(/`\d+, \d+,/, '`1, 2,'))).map(([w]) => w)).toEqual(['the experiment attributes']);
  const table = encodingsTable();
  expect(missing(readme.replace(table, table.replace(/\n\| `fire`[^\n]*/, ''))).map(([w]) => w)).toEqual(['the encodings table']);
});

test('the README\'s embed snippets are made by the panel\'s code, the script from the CDN at package.json\'s version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  expect(packageInfoCurrent()).toBe(true); // web/app/shared/package-info.js states package.json's name and version
  expect(cdnBase()).toBe(`https://cdn.jsdelivr.net/npm/${pkg.name}@${pkg.version}/dist/`);
  const [, component] = expectedLines().find(([w]) => w === 'the component embed snippet');
  const [, iframe] = expectedLines().find(([w]) => w === 'the iframe embed snippet');
  expect(component).toContain(`<script type="module" src="${cdnBase()}explorer.js"></script>`);
  expect(iframe).toContain('height="680"'); // two rows (tests/browser/embed-fit.test.js loads this snippet at 720 and 390 px)
  // mutations: the README's old iframe height, or an old version in package-info.js, fail the check
  expect(missing(readme.replace(iframe, iframe.replace('height="680"', 'height="420"'))).map(([w]) => w)).toEqual(['the iframe embed snippet']);
  expect(packageInfoCurrent(packageInfoText({ name: pkg.name, version: '0.0.1' }))).toBe(false);
});
