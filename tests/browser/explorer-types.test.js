// types/explorer.d.ts against the element itself, in headless Chromium: every
// member it declares exists on <posenc-explorer>, each property reflects its
// kebab-case attribute and reads back what was set, and the module registers
// the class it exports under the tag name HTMLElementTagNameMap promises.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useBrowser } from './harness.js';

const env = useBrowser();
const declarations = readFileSync(fileURLToPath(new URL('../../types/explorer.d.ts', import.meta.url)), 'utf8');

/** Members of `class PosencExplorer` in the .d.ts: {name, readonly, method, static}. */
function declaredMembers() {
  const body = /export declare class PosencExplorer extends HTMLElement \{\n([^]*?)\n\}/.exec(declarations)[1];
  return [...body.matchAll(/^ {2}(static )?(readonly )?(\w+)(\(|\??:)/gm)].map(([, isStatic, readonly, name, kind]) =>
    ({ name, static: !!isStatic, readonly: !!readonly, method: kind === '(' }));
}

// One allowed value per writable property, other than its default.
const SAMPLE = {
  task: 'reverse', seed: 42, trainLength: 64, layers: 3, heads: 2, dModel: 64, steps: 500, encodings: ['rope', 'alibi'],
  sweepFactor: 8, maxLength: 256, length: 40, layer: 1, head: 2, speed: 2, play: true, autoplay: true,
  ropeScaling: 'yarn', factor: 8, betaFast: 16, betaSlow: 2, lowFreq: 2, highFreq: 8,
  view: 'maps', controls: 'none', compact: true, theme: 'dark',
};
// Presentation-only attributes that the styles read: they need not be observed.
const STYLE_ONLY = ['view', 'controls', 'compact'];
const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

test('the parser finds the declared members (so the checks below are not vacuous)', () => {
  const names = declaredMembers().map((m) => m.name);
  expect(names).toEqual(expect.arrayContaining(['observedAttributes', 'encodings', 'trainLength', 'search', 'results']));
  expect(names.length).toBeGreaterThan(25);
});

test('every declared member exists on <posenc-explorer>, and properties reflect their attributes', async () => {
  const members = declaredMembers();
  const writable = members.filter((m) => !m.static && !m.readonly && !m.method).map((m) => m.name);
  expect(Object.keys(SAMPLE).sort()).toEqual([...writable].sort()); // a sample value for each declared property
  const page = await env.newPage();
  await page.goto(`${env.url}/app/blank.html`);
  const report = await page.evaluate(async ({ members, sample, styleOnly }) => {
    const kebabCase = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    const mod = await import('/component/posenc-explorer.js');
    const Cls = mod.PosencExplorer;
    const problems = [];
    if (customElements.get('posenc-explorer') !== Cls) problems.push("'posenc-explorer' is not the exported PosencExplorer");
    if (!(document.createElement('posenc-explorer') instanceof Cls)) problems.push('createElement does not give a PosencExplorer');
    const observed = Cls.observedAttributes ?? [];
    for (const m of members) {
      const el = document.createElement('posenc-explorer'); // not connected: no work starts
      if (m.static) {
        if (!(m.name in Cls)) problems.push(`static ${m.name} is missing`);
        continue;
      }
      if (!(m.name in el)) {
        problems.push(`${m.name} is missing`);
        continue;
      }
      if (m.method && typeof el[m.name] !== 'function') problems.push(`${m.name} is not a method`);
      if (m.method || m.readonly) continue;
      const attr = kebabCase(m.name);
      if (!styleOnly.includes(m.name) && !observed.includes(attr)) problems.push(`attribute ${attr} is not observed`);
      try {
        el[m.name] = sample[m.name];
        const back = el[m.name];
        if (JSON.stringify(back) !== JSON.stringify(sample[m.name]))
          problems.push(`${m.name} = ${JSON.stringify(sample[m.name])} reads back ${JSON.stringify(back)}`);
        if (!el.hasAttribute(attr)) problems.push(`setting ${m.name} does not write the ${attr} attribute`);
      } catch (e) {
        problems.push(`setting ${m.name} throws ${e}`);
      }
    }
    return problems;
  }, { members, sample: SAMPLE, styleOnly: STYLE_ONLY });
  expect(report).toEqual([]);
  expect(page.errors).toEqual([]);
});

test('the attribute names in the declarations are the kebab-case property names', () => {
  // Each property's doc comment starts with its attribute, e.g. /** `train-length`: … */.
  for (const name of Object.keys(SAMPLE)) {
    const doc = new RegExp(`/\\*\\*[^/]*?\`${kebab(name)}\`[^/]*\\*/\\s*\\n\\s*${name}\\??:`);
    expect([name, doc.test(declarations)]).toEqual([name, true]);
  }
});
