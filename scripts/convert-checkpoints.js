// Converts checkpoints to the format `npm run train` writes for the page (format version 3, int8
// block matrices + float16; posenc_train's kShippedWeights), through the wasm module: the C++
// reader/writer is the only code that parses the bytes. The result is deterministic, and it is the
// same file posenc_train writes for the same float32 weights (the int8 coder rounds every weight to
// float16 first, so a float16 or a float32 source codes alike). A file already so stored is left as it is.
//
//   node scripts/convert-checkpoints.js                 every web/checkpoints/*.ckpt, in place
//   node scripts/convert-checkpoints.js a.ckpt b.ckpt   these files, in place
//   node scripts/convert-checkpoints.js --out DIR a.ckpt   write the converted files into DIR
//   node scripts/convert-checkpoints.js --check         exit 1 if a file is not stored so (writes nothing)
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadPosenc } from '../web/lib/index.js';

/** How shipped checkpoints store their weights (posenc_train: kShippedWeights). */
export const SHIPPED_WEIGHTS = 'int8';

/** The shipped form of checkpoint `bytes` (any version), as posenc_train writes it. */
export function toShipped(pe, bytes) {
  const model = pe.loadModel(bytes); // (as saved: learned models keep their out-of-table policy)
  try {
    return model.save({ weights: SHIPPED_WEIGHTS });
  } finally {
    model.delete();
  }
}

async function main(argv) {
  const check = argv.includes('--check');
  const outAt = argv.indexOf('--out');
  const out = outAt >= 0 ? argv[outAt + 1] : null;
  let files = argv.filter((a, i) => !a.startsWith('--') && (outAt < 0 || i !== outAt + 1));
  if (!files.length) {
    const dir = new URL('../web/checkpoints/', import.meta.url).pathname;
    files = readdirSync(dir).filter((f) => f.endsWith('.ckpt')).sort().map((f) => join(dir, f));
  }
  const pe = await loadPosenc();
  let changed = 0;
  for (const file of files) {
    const bytes = new Uint8Array(readFileSync(file));
    const info = pe.readCheckpoint(bytes);
    const converted = toShipped(pe, bytes);
    const same = converted.length === bytes.length && converted.every((b, i) => b === bytes[i]);
    if (!same) changed++;
    if (check) {
      if (!same) console.error(`${file}: version ${info.version} (${info.weights}), not what npm run train writes (version 3, ${SHIPPED_WEIGHTS})`);
      continue;
    }
    const target = out ? join(out, basename(file)) : file;
    if (!same || out) writeFileSync(target, converted);
    console.log(`${target}: ${bytes.length} -> ${converted.length} bytes (version ${info.version} ${info.weights} -> 3 ${SHIPPED_WEIGHTS})`);
  }
  if (check && changed) process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
