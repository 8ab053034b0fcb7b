// The correct key of copy and reverse (web/app/lab/answer-key.js) is where the answer token sits, on the task's
// real sequences; the sweep's "auto" view (layer -1) picks, per shipped model, the head that puts the most
// weight on it, computed here again from that head's exact maps.
import { readFileSync } from 'node:fs';
import { loadPosenc } from '../../web/lib/index.js';
import { evalTask } from '../../web/app/shared/experiment.js';
import { answerKeys, headScores } from '../../web/app/lab/answer-key.js';
import { createSweepCore } from '../../web/app/lab/sweep-core.js';

let pe;
beforeAll(async () => { pe = await loadPosenc(); });

test.each(['copy', 'reverse'])('%s: each answer key holds the token its query must predict', (task) => {
  for (const length of [16, 32, 64, 200]) {
    const t = pe.createTask({ ...evalTask(task), seed: length });
    const { tokens, targets } = t.sample({ batch: 1, length });
    t.delete();
    const keys = answerKeys(task, tokens);
    const answered = Array.from(targets.subarray(0, length)).filter((x) => x >= 0).length;
    expect(keys.length).toBe(answered); // every scored query has its key
    for (const [q, k] of keys) {
      expect(k).toBeLessThan(q);
      expect(tokens[k]).toBe(targets[q]);
    }
  }
  expect(answerKeys('retrieval', Int32Array.from([1, 5, 2, 5]))).toEqual([]);
});

test('auto view: each shipped copy model\'s pick is the head of highest answer weight over all its layers and heads', async () => {
  const out = [];
  const handle = createSweepCore(async () => pe, (m) => out.push(m));
  for (const enc of ['alibi', 'rope', 'fire']) {
    await handle({ type: 'model', encoding: enc, bytes: new Uint8Array(readFileSync(new URL(`../../web/checkpoints/copy-${enc}.ckpt`, import.meta.url))) });
    const { trainedLength: T } = out.at(-1);
    const all = [];
    for (let layer = 0; layer < 3; layer++) {
      await handle({ type: 'attention', encoding: enc, id: layer, length: T, layer, head: -1, task: 'copy', seed: 1, scaling: null });
      const m = out.at(-1);
      const { scores } = headScores(m.probs, m.heads.length, T, answerKeys('copy', m.tokens));
      scores.forEach((s, h) => all.push({ layer, head: h, s }));
    }
    const best = all.reduce((a, b) => (b.s > a.s ? b : a));
    await handle({ type: 'attention', encoding: enc, id: 9, length: T, layer: -1, head: -1, task: 'copy', seed: 1, scaling: null });
    const auto = out.at(-1);
    expect([auto.layer, auto.heads]).toEqual([best.layer, [best.head]]);
    expect(best.s).toBeGreaterThan(0.5); // at the training length the picked head marks the answer
  }
});
