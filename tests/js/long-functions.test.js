// No function in web/ over 150 lines without a reason: a `// long because: ...` comment directly above it. The
// functions below are long from before this rule and wait to be split; the list may only shrink.
import { functionsIn, longFunctions, LIMIT } from './long-functions.js';

const WAITING = [
  'lib/lm.js wrap',
  'lib/model.js createModelApi',
];

const key = (f) => `${f.file} ${f.name}`;
let long;
beforeAll(() => { long = longFunctions(); });
const body = (n) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
const fn = (n, head = '') => `${head}export function f() {\n${body(n)}\n}\n`;

test('every function in web/ over the limit has a reason above it, or is one of those waiting to be split', () => {
  const unexplained = long.filter((f) => !f.reason).map(key);
  expect(unexplained.filter((k) => !WAITING.includes(k))).toEqual([]);
});

test('every function on the waiting list is still over the limit (a split one leaves the list)', () => {
  const found = new Set(long.map(key));
  expect(WAITING.filter((k) => !found.has(k))).toEqual([]);
});

test('the parser finds functions of every shape and measures them in lines', () => {
  const src = [
    'export function a() {\n}',
    'const b = () => {\n\n};',
    'const o = { c() { return 1; }, d: function () {\n} };',
    'class K { e() {\n} }',
    'export default function () {\n\n\n}',
  ].join('\n');
  expect(functionsIn(src).map((f) => [f.name, f.lines])).toEqual([
    ['a', 2], ['b', 3], ['c', 1], ['d', 2], ['e', 2], ['(anonymous)', 4],
  ]);
});

test('mutation: a function one line over the limit is caught, one at the limit is not, and a reason excuses it', () => {
  expect(functionsIn(fn(LIMIT))[0].lines).toBe(LIMIT);
  expect(functionsIn(fn(LIMIT + 1))[0].lines).toBe(LIMIT + 1);
  expect(functionsIn(fn(LIMIT + 1))[0].reason).toBe(false);
  expect(functionsIn(fn(LIMIT + 1, '// long because: one table read top to bottom\n'))[0].reason).toBe(true);
  expect(functionsIn(fn(LIMIT + 1, '/**\n * Builds it.\n */\n// long because: a table\n'))[0].reason).toBe(true);
  expect(functionsIn(fn(LIMIT + 1, '// long because: a table\n/** Builds it. */\n'))[0].reason).toBe(true);
  // A reason that heads some other statement does not count, nor does a comment without the words.
  expect(functionsIn(fn(LIMIT + 1, '// long because: a table\nconst x = 1;\n'))[0].reason).toBe(false);
  expect(functionsIn(fn(LIMIT + 1, '// long: a table\n'))[0].reason).toBe(false);
  // Nested functions are measured on their own, and their reason sits above their own line.
  const nested = `export function outer() {\n  // long because: a table\n  const inner = () => {\n${body(LIMIT + 1)}\n  };\n}\n`;
  const [outer, inner] = functionsIn(nested);
  expect([outer.name, outer.reason, inner.name, inner.reason]).toEqual(['outer', false, 'inner', true]);
});
