// Functions in web/ longer than a limit, found with a real JavaScript parser (acorn). A long function passes when a
// comment saying `long because:` sits directly above it (or above the statement that declares it).
// Run directly to list them: node tests/js/long-functions.js [limit]
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import * as acorn from 'acorn';

export const LIMIT = 150;
const REASON = /long because:/;
const web = fileURLToPath(new URL('../../web/', import.meta.url));

/** Every .js file under web/, leaving out web/vendor (bundling entries for other people's code). */
export function webFiles(dir = web) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && /\.m?js$/.test(d.name))
    .map((d) => `${d.parentPath}/${d.name}`)
    .filter((p) => !relative(web, p).startsWith('vendor'))
    .sort();
}

function isNode(v) { return v && typeof v === 'object' && typeof v.type === 'string'; }

/** Each function in `source` with its name, first line, length in lines and whether a reason comment heads it. */
export function functionsIn(source) {
  const comments = [];
  const ast = acorn.parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true, onComment: comments });
  const found = [];
  // The reason may sit above the statement that holds the function: `export function`, `const f = () => {`,
  // `name: function () {`, `export default`.
  const headed = (start) => {
    let at = start;
    for (let i = comments.length - 1; i >= 0; i--) {
      const c = comments[i];
      if (c.end > at) continue;
      if (source.slice(c.end, at).trim() !== '') break;
      if (REASON.test(c.value)) return true;
      at = c.start;
    }
    return false;
  };
  const visit = (node, parents) => {
    if (/Function/.test(node.type)) {
      const parent = parents.at(-1);
      const grand = parents.at(-2);
      let name = node.id?.name;
      let start = node.start;
      if (parent?.type === 'VariableDeclarator') { name ??= parent.id.name; start = grand.start; }
      if ((parent?.type === 'Property' || parent?.type === 'MethodDefinition') && parent.value === node) {
        name ??= parent.key.name ?? parent.key.value; start = parent.start;
      }
      if (parent?.type === 'AssignmentExpression') name ??= source.slice(parent.left.start, parent.left.end);
      if (/^Export/.test(parent?.type)) start = parent.start;
      if (parent?.type === 'VariableDeclarator' && /^Export/.test(parents.at(-3)?.type)) start = parents.at(-3).start;
      const line = source.slice(0, start).split('\n').length;
      found.push({ name: name ?? '(anonymous)', line, lines: node.loc.end.line - node.loc.start.line + 1, reason: headed(start) });
    }
    for (const v of Object.values(node)) {
      if (Array.isArray(v)) { for (const c of v) if (isNode(c)) visit(c, [...parents, node]); }
      else if (isNode(v)) visit(v, [...parents, node]);
    }
  };
  visit(ast, []);
  return found;
}

/** Functions in web/ over `limit` lines, longest first, each with its file relative to web/. */
export function longFunctions(limit = LIMIT, files = webFiles()) {
  return files.flatMap((file) => functionsIn(readFileSync(file, 'utf8'))
    .filter((f) => f.lines > limit)
    .map((f) => ({ file: relative(web, file), ...f })))
    .sort((a, b) => b.lines - a.lines);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const f of longFunctions(Number(process.argv[2] ?? LIMIT))) {
    console.log(`${String(f.lines).padStart(4)}  ${f.name}  web/${f.file}:${f.line}${f.reason ? '  (has a reason)' : ''}`);
  }
}
