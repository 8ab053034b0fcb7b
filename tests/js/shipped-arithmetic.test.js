// Do the shipped checkpoints come from this code? A cheap guard (issue 28): the first 5 steps of each of the
// 60 shipped runs (seed 0 of every task and encoding, the same data, initialisation, micro-batches, schedule and
// optimizer as the full run), hashed bit for bit (posenc_train --fingerprint), against the values of the code
// that trained web/checkpoints/. A change to any training arithmetic (a kernel's float order, an FMA, the data)
// moves the hash of the runs it touches: the shipped checkpoints and docs/results.json then no longer come from
// this code. Retrain them (npm run train, or the changed encoding's runs and scripts/results-merge.js --replace),
// confirm with `npm run train -- --check-shipped` (retrains seed 0 of every pair and compares the files byte for
// byte: minutes, so the tests do not run it), then put the new values here. The values hold for the native
// x86-64 build (AVX2, FMA) that trains the checkpoints; elsewhere the test says so and skips.
// Recorded with the code of the FIRE retrain (2026-12-03), whose --check-shipped reproduced all 60 checkpoints;
// rope_random and learned_random with the code of their retrain (positions drawn per example, same day).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const bin = new URL('../../build/native/posenc_train', import.meta.url).pathname;
const STEPS = 5;
const RECORDED = {
  copy: {
    none: 'e9f8ee01af024bf2', sinusoidal: 'd8b731f6b3e2b09d', learned: '126cc3cf9cab6b76',
    t5: 'df4ebfdafdc2664c', alibi: '4ab878242d047073', rope: 'a824b58605a3aff4',
    shaw: '2d85483710907ccf', xpos: '96de83a48c028290', prope: '2154894aee9165ac',
    fire: '7051e67b9fc57547', rope_random: '4a8124f64dc6cdfc', learned_random: '8df0384f9c87e24a',
  },
  reverse: {
    none: '3faedf4349535f62', sinusoidal: 'bd0c7ad95a9f1bd7', learned: '00d5157322190617',
    t5: '9822129781d16e04', alibi: '6cb2b3cc18eea4d4', rope: '8767e913fb8c4fcb',
    shaw: '5c5a7505a3f3e971', xpos: '396ed888c5e51547', prope: '4d5bd0b835eed511',
    fire: '8ea2e70e7db45523', rope_random: 'a5da785cbff4d849', learned_random: 'd713c7368ba7675f',
  },
  retrieval: {
    none: 'b4c5ea84f261ce38', sinusoidal: '3d28fc28321878e1', learned: '7dd7ed19e8688abd',
    t5: 'd282fd6c1e144354', alibi: '864f5d3b0aa93409', rope: '759b817c5794cc20',
    shaw: '4814fda708dde25d', xpos: 'a5b41a141f115d73', prope: '5017d2e2ffddde40',
    fire: '10ac54b002234d68', rope_random: '93c8e9c39589fff6', learned_random: 'be7fedfbcc064c95',
  },
  kth_retrieval: {
    none: '91abd40c04cd6be1', sinusoidal: 'e0c2bd5d7e184888', learned: '28f6f2a980fd003e',
    t5: 'a4f4021fca854596', alibi: '25bb5a5daa8a1e8f', rope: '404282e8290fa21a',
    shaw: 'd8d6f722a1913149', xpos: 'f601ac53e7663fe8', prope: 'ba609134d6721e0e',
    fire: '767e2e4a3c276930', rope_random: '19f62773f2e3195d', learned_random: '41d52cca1520e9a6',
  },
  markov: {
    none: '5859613eeb1090ee', sinusoidal: 'ffb9eaaff0b7f9f4', learned: '07db2208bfa0f0f1',
    t5: '5587c366b7fea366', alibi: '82398bf029e95cbf', rope: '425e3bb6f63a272f',
    shaw: '05bae64d7f05c1ff', xpos: 'c3992866932de508', prope: 'e09dcf3046dbe518',
    fire: '56e605cdb2f4dd46', rope_random: '0b65a409f6afdd28', learned_random: '5f36fb327a62294e',
  },
};

const native = process.platform === 'linux' && process.arch === 'x64';
if (!native) console.log(`shipped-arithmetic: skipped (the recorded hashes are of the x86-64 Linux build; this is ${process.platform}/${process.arch})`);
(native ? test : test.skip)('the first steps of every shipped run hash to the values of the code that trained the checkpoints', () => {
  expect(existsSync(bin)).toBe(true);
  const out = execFileSync(bin, ['--fingerprint', String(STEPS), '--seeds', '1', '--no-variants', '--no-scalings'], { encoding: 'utf8' });
  const got = {};
  for (const line of out.trim().split('\n')) {
    const [task, encoding, , seed, , steps, hash] = line.split(' ');
    expect([task, encoding, seed, steps]).toEqual([task, encoding, '0', String(STEPS)]);
    // a registry row with no shipped checkpoint (a new encoding before its runs are shipped) has nothing to guard
    if (existsSync(new URL(`../../web/checkpoints/${task}-${encoding}.ckpt`, import.meta.url))) (got[task] ??= {})[encoding] = hash;
  }
  // on failure the diff names the (task, encoding) runs whose training arithmetic changed
  expect(got).toEqual(RECORDED);
});
