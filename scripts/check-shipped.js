// `npm run train -- --check-shipped [posenc_train options]`: do the shipped checkpoints come from this code?
// Retrains seed 0 of every (task, encoding) pair (the runs that write web/checkpoints/; no RoPE scalings,
// no variants) into a temporary directory and compares byte for byte: each checkpoint it wrote with the
// shipped one, and each of its curves.json entries with the shipped entry. Options narrow it (e.g.
// --encodings fire, --tasks copy). Training is deterministic, so any difference means the code that made
// the shipped files is not this code: retrain them (scripts/train.sh). Exit 0 all identical, 1 some differ,
// 2 usage. The tests do not run it (it trains: minutes); run it after changing a kernel or the training.
//   node scripts/check-shipped.js [--against DIR] [posenc_train options]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;

/** curves.json's entries by checkpoint name: each entry's line as written (one entry a line). */
export function curveLines(text) {
  const lines = new Map();
  for (const line of text.split('\n')) {
    const m = /^"([^"]+\.ckpt)":/.exec(line);
    if (m) lines.set(m[1], line.replace(/,$/, ''));
  }
  return lines;
}

/**
 * Compares a fresh output directory's checkpoints (web/checkpoints/*.ckpt and curves.json entries) with the
 * shipped ones in `against`: { same: [names], differ: [names], missing: [names absent from `against`] }.
 */
export function compareShipped(fresh, against) {
  const out = { same: [], differ: [], missing: [] };
  const freshCurves = curveLines(readFileSync(join(fresh, 'curves.json'), 'utf8'));
  const shippedCurves = existsSync(join(against, 'curves.json')) ? curveLines(readFileSync(join(against, 'curves.json'), 'utf8')) : new Map();
  for (const name of readdirSync(fresh).filter((f) => f.endsWith('.ckpt')).sort()) {
    if (!existsSync(join(against, name))) {
      out.missing.push(name);
      continue;
    }
    const bytes = readFileSync(join(fresh, name)).equals(readFileSync(join(against, name)));
    const curve = freshCurves.get(name) === shippedCurves.get(name);
    if (bytes && curve) out.same.push(name);
    else out.differ.push(bytes ? `${name} (its curve)` : name);
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  let against = join(root, 'web/checkpoints');
  const at = args.indexOf('--against');
  if (at >= 0) {
    if (!args[at + 1]) {
      console.error('usage: node scripts/check-shipped.js [--against DIR] [posenc_train options]');
      process.exit(2);
    }
    against = args.splice(at, 2)[1];
  }
  if (args.some((a) => ['--out', '--seeds', '--first-seed', '--quick'].includes(a))) {
    console.error('check-shipped: --out, --seeds, --first-seed and --quick are set by the check (seed 0 of each pair, as shipped)');
    process.exit(2);
  }
  const bin = join(root, 'build/native/posenc_train');
  const dir = mkdtempSync(join(tmpdir(), 'posenc-check-shipped-'));
  let status = 1;
  try {
    const start = Date.now();
    execFileSync(bin, ['--out', dir, '--seeds', '1', '--no-scalings', '--no-variants', ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    const r = compareShipped(join(dir, 'web/checkpoints'), against);
    const total = r.same.length + r.differ.length + r.missing.length;
    console.log(`check-shipped: ${r.same.length} of ${total} checkpoints (and their curves) retrained byte for byte in ${Math.round((Date.now() - start) / 1000)} s`);
    if (r.differ.length) console.log(`differ: ${r.differ.join(', ')}`);
    if (r.missing.length) console.log(`not shipped: ${r.missing.join(', ')}`);
    status = r.differ.length || r.missing.length ? 1 : 0;
  } catch (e) {
    console.error(`check-shipped: ${e.message.split('\n')[0]}`);
    status = 2;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(status);
}
