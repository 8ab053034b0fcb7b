// The native experiment tools share one command-line reader: a bad argument ends a tool with status 2 and
// one line on stderr, "<tool>: <message>", that names the flag and what it allows; --help prints the usage
// and succeeds. Every case here stops at the command line, before any training.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const tool = (name) => new URL(`../../build/native/${name}`, import.meta.url).pathname;
const tools = ['posenc_train', 'posenc_spectrum', 'posenc_ruoss', 'posenc_kazemnejad'];
const missing = tools.filter((t) => !existsSync(tool(t)));
if (missing.length) throw new Error(`build the native tools first (scripts/setup.sh all): missing ${missing.join(', ')}`);

function run(name, args) {
  const r = spawnSync(tool(name), args, { encoding: 'utf8', timeout: 30000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// [tool, arguments, the one line expected on stderr]
const cases = [
  ['posenc_train', ['--steps', '0'], 'posenc_train: --steps must be an integer in [1, 10000000] (got 0)'],
  ['posenc_train', ['--steps', '12x'], 'posenc_train: --steps must be an integer in [1, 10000000] (got 12x)'],
  ['posenc_train', ['--jobs'], 'posenc_train: --jobs needs a value'],
  ['posenc_train', ['--lr', '0.01x'], 'posenc_train: --lr must be a number in (0, 10) (got 0.01x)'],
  ['posenc_train', ['--beta2', '1'], 'posenc_train: --beta2 must be a number in [0, 1) (got 1)'],
  ['posenc_train', ['--rope-base', 'ten'], 'posenc_train: --rope-base must be a number in (1, 1e+09) (got ten)'],
  ['posenc_train', ['--quick', '--bogus'], 'posenc_train: unknown option --bogus (see --help)'],
  ['posenc_spectrum', ['--length', '7'], 'posenc_spectrum: --length must be an integer in [8, 4096] (got 7)'],
  ['posenc_spectrum', ['--bases', '100,0.5'], 'posenc_spectrum: --bases must be a number in (1, 1e+09) (got 0.5)'],
  ['posenc_spectrum', ['--lr'], 'posenc_spectrum: --lr needs a value'],
  ['posenc_spectrum', ['--bogus'], 'posenc_spectrum: unknown option --bogus (see --help)'],
  ['posenc_ruoss', ['--seeds', '101'], 'posenc_ruoss: --seeds must be an integer in [1, 100] (got 101)'],
  ['posenc_ruoss', ['--lr', '2'], 'posenc_ruoss: --lr must be a number in (0, 1] (got 2)'],
  ['posenc_ruoss', ['--task-seeds', 'reverse=0'], 'posenc_ruoss: --task-seeds must be an integer in [1, 100] (got 0)'],
  ['posenc_ruoss', ['--task-seeds', 'reverse'], 'posenc_ruoss: --task-seeds must be TASK=N,... with N an integer in [1, 100] (got reverse)'],
  ['posenc_ruoss', ['--bogus'], 'posenc_ruoss: unknown option --bogus (see --help)'],
  ['posenc_kazemnejad', ['--batch', '-1'], 'posenc_kazemnejad: --batch must be an integer in [1, 4096] (got -1)'],
  ['posenc_kazemnejad', ['--lr', '0'], 'posenc_kazemnejad: --lr must be a number in (0, 10] (got 0)'],
  ['posenc_kazemnejad', ['--out'], 'posenc_kazemnejad: --out needs a value'],
  ['posenc_kazemnejad', ['--bogus'], 'posenc_kazemnejad: unknown option --bogus (see --help)'],
];

test.each(cases)('%s %j: exit 2 and one line naming the flag', (name, args, line) => {
  const r = run(name, args);
  expect([r.status, r.stderr]).toEqual([2, `${line}\n`]);
  expect(r.stdout).toBe('');
});

test.each(tools)('%s --help prints its usage and exits 0', (name) => {
  const r = run(name, ['--help']);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(new RegExp(`${name} \\[--out`));
  expect(r.stderr).toBe('');
});

test('a list names each bad item: posenc_train --encodings with an unknown encoding', () => {
  const r = run('posenc_train', ['--encodings', 'rope,nope']);
  expect(r.status).toBe(2);
  expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(r.stderr).toMatch(/^posenc_train: encoding must be one of 'none', .*\(got 'nope'\)|^posenc_train: .*nope/);
});
