// scripts/check-shipped.js's comparison (npm run train -- --check-shipped): a retrained checkpoint or curve
// that differs from the shipped one by one byte is reported; one the shipped set lacks too. On files written
// here (the check itself trains, minutes: the tests do not run it).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareShipped, curveLines } from '../../scripts/check-shipped.js';

const curves = (entries) => `{"version":1,"about":"x",\n"curves":{\n${entries.map(([k, v]) => `"${k}":${JSON.stringify(v)}`).join(',\n')}\n}}\n`;

test('curveLines reads one entry a line, by checkpoint name', () => {
  const m = curveLines(curves([['a.ckpt', { steps: 100 }], ['b.ckpt', { steps: 200 }]]));
  expect([...m.keys()]).toEqual(['a.ckpt', 'b.ckpt']);
  expect(m.get('a.ckpt')).toBe('"a.ckpt":{"steps":100}');
});

test('compareShipped: identical, checkpoint bytes that differ, a curve that differs, a checkpoint not shipped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-check-shipped-test-'));
  try {
    const fresh = join(dir, 'fresh'), shipped = join(dir, 'shipped');
    mkdirSync(fresh);
    mkdirSync(shipped);
    const bytes = Buffer.from([1, 2, 3, 4]), other = Buffer.from([1, 2, 3, 5]);
    for (const [name, f, s] of [['copy-a.ckpt', bytes, bytes], ['copy-b.ckpt', bytes, other], ['copy-c.ckpt', bytes, bytes]]) {
      writeFileSync(join(fresh, name), f);
      writeFileSync(join(shipped, name), s);
    }
    writeFileSync(join(fresh, 'copy-d.ckpt'), bytes);
    const entries = [['copy-a.ckpt', { steps: 100 }], ['copy-b.ckpt', { steps: 100 }], ['copy-c.ckpt', { steps: 100 }], ['copy-d.ckpt', { steps: 1 }]];
    writeFileSync(join(fresh, 'curves.json'), curves(entries));
    writeFileSync(join(shipped, 'curves.json'), curves([...entries.slice(0, 2), ['copy-c.ckpt', { steps: 101 }], ['copy-e.ckpt', { steps: 5 }]]));
    expect(compareShipped(fresh, shipped)).toEqual({ same: ['copy-a.ckpt'], differ: ['copy-b.ckpt', 'copy-c.ckpt (its curve)'], missing: ['copy-d.ckpt'] });
    writeFileSync(join(shipped, 'copy-b.ckpt'), bytes);
    writeFileSync(join(shipped, 'curves.json'), curves(entries));
    writeFileSync(join(shipped, 'copy-d.ckpt'), bytes);
    expect(compareShipped(fresh, shipped)).toEqual({ same: ['copy-a.ckpt', 'copy-b.ckpt', 'copy-c.ckpt', 'copy-d.ckpt'], differ: [], missing: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
