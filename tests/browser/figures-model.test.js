// Every figure about the trained RoPE model is computed from that model (issue 29): the spectrum of
// "Stretching RoPE" and its words use the loaded model's own RoPE base and head dim (not the 10000 of the
// article's formula), the scaled frequencies are those of that base, and a scaled row says it is scaled
// (type and factor). Expected values are computed here from the model's config, independently of the page.
import { useBrowser } from './harness.js';
import { waitFor, waitReady } from './page-helpers.js';

const browser = useBrowser();

test('the RoPE spectrum and the scaled row use the loaded model\'s base and head dim, and say when scaling is applied', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${browser.url}/?play=0&encodings=rope,alibi`);
  await waitReady(page);
  const config = await waitFor(page, () => posenc.client.info('rope')?.config, { what: 'the RoPE model' });
  await waitFor(page, (b) => posenc.dataFor('rope-scaling')?.ropeBase === b, { arg: config.ropeBase, what: 'the spectrum of the loaded model' });
  const headDim = config.dModel / config.heads;
  const d = await page.evaluate(() => posenc.dataFor('rope-scaling'));
  expect(d.ropeBase).toBe(config.ropeBase);
  expect(d.headDim).toBe(headDim);
  expect(d.model).toEqual({ base: config.ropeBase, headDim, source: 'loaded' });
  // θ_i = base^(-2i/d), computed here
  const theta = Array.from({ length: headDim / 2 }, (_, i) => config.ropeBase ** (-2 * i / headDim));
  expect(d.base.length).toBe(headDim / 2);
  d.base.forEach((t, i) => expect(t).toBeCloseTo(theta[i], 5));
  // the words count the pairs slower than the training length from the same wavelengths
  const slow = theta.filter((t) => (2 * Math.PI) / t > d.state.trainLength).length;
  const notice = await page.textContent('#rope-scaling .spectrum-notice');
  expect(notice).toContain(`base ${config.ropeBase} and head dim ${headDim}, ${slow} of the ${headDim / 2} pairs turn less than once`);
  expect(await page.isHidden('.sweep-row[data-encoding=rope] .scaling')).toBe(true);

  // linear scaling ×4: every frequency divided by 4, and the RoPE row says so
  await page.selectOption('select[name=ropeScaling]', 'linear');
  await waitFor(page, () => posenc.dataFor('rope-scaling').scaled, { what: 'the scaled spectrum' });
  const s = await page.evaluate(() => posenc.dataFor('rope-scaling'));
  expect(s.state.factor).toBe(4);
  s.scaled.forEach((t, i) => expect(t).toBeCloseTo(theta[i] / 4, 5));
  const label = await page.textContent('.sweep-row[data-encoding=rope] .scaling');
  expect(label).toMatch(/RoPE scaled: linear \(position interpolation\) ×4, applied to the trained model with no fine-tuning/);
  expect(await page.isVisible('.sweep-row[data-encoding=rope] .scaling')).toBe(true);
  expect(await page.isHidden('.sweep-row[data-encoding=rope] .offline')).toBe(true);
  expect(await page.isHidden('.sweep-row[data-encoding=alibi] .scaling')).toBe(true);
  expect(page.errors).toEqual([]);
});
