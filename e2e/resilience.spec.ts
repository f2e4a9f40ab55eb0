/** Failure handling a user would notice: a crashed encoder worker, and two tabs on one memory. */
import { expect, test } from '@playwright/test';
import { ask, waitReady } from './helpers.js';

test('a crashed encoder worker fails the pending call visibly, and "Restart" brings retrieval back', async ({ page }) => {
  await page.goto('/');
  await waitReady(page);
  await page.getByRole('textbox', { name: 'You', exact: true }).fill('The boiler was serviced in March');
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#history .round')).toHaveCount(1);

  // An uncaught error inside the encoder worker, as a crash would throw.
  const encoderWorker = page.workers().find((worker) => /encoder/.test(worker.url()));
  expect(encoderWorker).toBeDefined();
  await encoderWorker!.evaluate(() => void setTimeout(() => {
    throw new Error('simulated encoder worker crash');
  }, 0));
  await expect(page.locator('#alerts [data-code="WORKER_FAILED"]').first()).toContainText('encoder worker stopped');
  await page.getByRole('button', { name: 'Restart the encoders' }).click();
  await expect(page.locator('#backend-status')).toHaveText(/^Backend: /);
  await expect(async () => {
    expect((await ask(page, { text: 'when was the boiler serviced?' })).ranked).toHaveLength(1);
  }).toPass({ timeout: 120_000 });
});

test('two tabs on one memory: a write in one tab shows up in the other without corrupting it', async ({ context }) => {
  const tabA = await context.newPage();
  await tabA.goto('/');
  await waitReady(tabA);
  const tabB = await context.newPage();
  await tabB.goto('/');
  await waitReady(tabB);

  for (const [count, text] of ['Tab A says: the wifi password is on the fridge', 'Tab A says: the bins go out on Monday', 'Tab A says: the plants need water on Sunday'].entries()) {
    await tabA.getByRole('textbox', { name: 'You', exact: true }).fill(text);
    await tabA.getByRole('button', { name: 'Add to memory' }).click();
    await expect(tabA.locator('#history .round')).toHaveCount(count + 1);
    await expect(tabB.locator('#history .round')).toHaveCount(count + 1);
  }
  // One notice, counted, however often the other tab writes.
  const notices = tabB.locator('#alerts .notice');
  await expect(notices).toHaveCount(1);
  await expect(notices).toContainText('updated in another tab');
  await expect(notices).toContainText('(×3)');

  await tabB.getByRole('textbox', { name: 'You', exact: true }).fill('Tab B says: the spare bulbs are in the garage');
  await tabB.getByRole('button', { name: 'Add to memory' }).click();
  await expect(tabA.locator('#history .round')).toHaveCount(4);
  const result = await ask(tabA, { text: 'where are the spare bulbs?' });
  expect(result.ranked).toHaveLength(4);
  await expect(tabA.locator('#results ol.hits > li').first()).toContainText('Tab B says: the spare bulbs are in the garage');
});
