/** The drop-in script on a page that is not cross-origin isolated, as a third-party widget uses it. */
import { expect, test } from '@playwright/test';

test('the drop-in works without cross-origin isolation: the widget remembers and answers from memory', async ({ page }) => {
  await page.goto('/dropin-example.html');
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(false);
  await expect(page.locator('#isolation')).toHaveText('false');
  await expect(page.locator('#widget-status')).toContainText('Memory ready', { timeout: 120_000 });

  const input = page.getByRole('textbox', { name: 'Message' });
  await input.fill('My order number is 4417 and the rake never arrived');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#widget-log li.bot').last()).toHaveText('Thanks, noted!');
  await expect(input).toHaveValue('');
  await input.fill('I also like tulips in spring');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#widget-log li.bot')).toHaveCount(2);

  await input.fill('what was my order number?');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#widget-log li.bot').last()).toContainText('4417');
  // Nothing stored is about lawn mowers: retrieval says so (relevant: false), and so does the widget.
  await input.fill('Do you sell lawn mowers?');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#widget-log li.bot').last()).toHaveText("I don't remember anything about that yet.");

  // The ES-module twin exposes the same API.
  const viaModule = await page.evaluate(async () => {
    const vmem = (await import(new URL('/dropin/vmem.mjs', location.href).href)) as typeof import('../app/dropin.js');
    const memory = await vmem.openMemory('module-twin', { storage: 'memory' });
    await memory.add({ user: { text: 'The spare key is under the blue flower pot' } });
    const result = await memory.retrieve('where is the spare key?');
    await memory.close();
    return result.blocks.flatMap((block) => block.rounds.map((round) => round.user.text));
  });
  expect(viaModule[0]).toContain('blue flower pot');
});
