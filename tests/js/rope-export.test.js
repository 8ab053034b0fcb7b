// The view's export: HF rope_parameters JSON and a PyTorch snippet. The snippet is run with
// Debian's python3-torch (float64), for every shipped config, and its inv_freq, cos/sin scale and
// softmax correction are compared with the core's. Skips with a notice when python3-torch is missing
// (scripts/setup.sh installs it).
import { loadPosenc } from '../../web/lib/index.js';
import { ropeParametersJson, pytorchSnippet } from '../../web/lib/rope-export.js';
import { SHIPPED_CONFIGS } from '../../web/configs/index.js';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PYTHON = '/usr/bin/python3';
let pe, torch = false;
beforeAll(async () => {
  pe = await loadPosenc();
  try {
    execFileSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' });
    torch = true;
  } catch {
    console.log('SKIP: python3-torch is not installed (scripts/setup.sh installs it); the PyTorch export is not run');
  }
});
const config = (id) => JSON.parse(readFileSync(new URL(`../../web/configs/${id}.json`, import.meta.url), 'utf8'));

test('rope_parameters JSON reads back to the same frequencies', () => {
  for (const { id } of SHIPPED_CONFIGS) {
    const r = pe.ropeFromConfig(config(id));
    const json = ropeParametersJson(r);
    if (r.family.id === 'deepseek_v4') {
      expect(Object.keys(json.rope_parameters)).toEqual(['main', 'compress']);
      continue;
    }
    // the exported block in a minimal config of the same family gives the same inv_freq per layer type
    const c = config(id);
    const t = c.text_config ?? c;
    const { rope_scaling: _s, rope_parameters: _p, rope_theta: _t, rope_local_base_freq: _l, partial_rotary_factor: _f, original_max_position_embeddings: _o, ...rest } = t;
    const back = pe.ropeFromConfig({ ...rest, ...json });
    expect(back.layerTypes.map((l) => [l.name, Array.from(l.invFreq)])).toEqual(r.layerTypes.map((l) => [l.name, Array.from(l.invFreq)]));
  }
  expect(ropeParametersJson(pe.ropeFromConfig(config('smollm3-3b')))).toEqual({ rope_parameters: { rope_type: 'default', rope_theta: 5e6 },
    no_rope_layers: Array.from({ length: 36 }, (_, i) => (i % 4 === 3 ? 0 : 1)) });
});

test('the PyTorch snippet, run in python3-torch, rebuilds the core numbers for every shipped config', () => {
  if (!torch) return;
  const dir = mkdtempSync(join(tmpdir(), 'posenc-rope-export-'));
  try {
    const results = [];
    for (const { id } of SHIPPED_CONFIGS) {
      const r = pe.ropeFromConfig(config(id));
      writeFileSync(join(dir, `${id.replace(/\W/g, '_')}.py`), pytorchSnippet(r, { model: id }));
      results.push([id, r]);
    }
    // one interpreter runs every snippet (importing torch once)
    const driver = `import json, runpy, sys, io, contextlib\nout = {}\nfor name in sys.argv[1:]:\n    buf = io.StringIO()\n    with contextlib.redirect_stdout(buf):\n        runpy.run_path(name, run_name='__main__')\n    out[name] = json.loads(buf.getvalue())\nprint(json.dumps(out))\n`;
    writeFileSync(join(dir, 'driver.py'), driver);
    const files = results.map(([id]) => join(dir, `${id.replace(/\W/g, '_')}.py`));
    const got = JSON.parse(execFileSync(PYTHON, [join(dir, 'driver.py'), ...files], { maxBuffer: 64 << 20 }).toString());
    let worst = 0, compared = 0;
    results.forEach(([id, r], k) => {
      const g = got[files[k]];
      for (const lt of r.layerTypes.filter((l) => l.rope)) {
        const p = g[lt.name];
        expect([id, lt.name, p.inv_freq.length]).toEqual([id, lt.name, lt.invFreq.length]);
        lt.invFreq.forEach((x, i) => {
          const err = x ? Math.abs(p.inv_freq[i] - x) / x : Math.abs(p.inv_freq[i]);
          worst = Math.max(worst, err);
          if (!(err <= 1e-12)) throw new Error(`${id} ${lt.name} inv_freq[${i}]: torch ${p.inv_freq[i]} vs core ${x}`);
        });
        expect(Math.abs(p.attention_scaling - lt.cosSinScale)).toBeLessThanOrEqual(1e-12);
        expect(Math.abs(p.softmax_mscale2 - lt.softmaxScale)).toBeLessThanOrEqual(1e-12);
        compared++;
      }
    });
    console.log(`PyTorch export: ${compared} layer types of ${results.length} configs; worst relative inv_freq difference ${worst.toExponential(2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120000);
