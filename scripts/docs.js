// `npm run docs`: regenerates the screenshots docs/ commits (docs/first-screen.png, docs/first-page.png, docs/explorer-{1,4,8}x.png,
// docs/blog-post.png) with the browser tests that take them, in headless Chromium. Only this script writes
// them: under `npm test` the same tests write to a tmp dir (tests/browser/harness.js docsShot).
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const tests = {
  'tests/browser/hero.test.js': 'the first screen answers the question',
  'tests/browser/page.test.js': 'every encoding view draws real content',
  'tests/browser/explorer.test.js': 'screenshots at 1x, 4x and 8x',
  'tests/browser/component.test.js': 'examples/blog-post.html renders two live explorers',
  'tests/browser/lm-view.test.js': 'chromium stories260K by its addresses',
};
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const r = spawnSync(process.execPath, ['node_modules/jest/bin/jest.js', ...Object.keys(tests),
  '-t', Object.values(tests).map(escape).join('|')], {
  cwd: root, stdio: 'inherit',
  env: { ...process.env, POSENC_DOCS: '1', NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() },
});
if (r.status === 0) console.log('posenc: docs/first-screen.png, docs/first-page.png, docs/explorer-{1,4,8}x.png, docs/blog-post.png and docs/your-model.png regenerated');
process.exit(r.status ?? 1);
