/**
 * Keyboard and touch: the question box is a Tab away from the top of the page, Ctrl/Cmd+Enter
 * submits either box, every target is at least 24 by 24 px on a phone, and file names cannot turn
 * the text around them or grow a column.
 */
import { expect, test, type Page } from '@playwright/test';
import { loadSample, photo, waitReady } from './helpers.js';

test('from the top of the page, the keyboard reaches the question box in at most 5 Tabs, and Ctrl+Enter asks', async ({ page }) => {
  await page.goto('/');
  await waitReady(page);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  let tabs = 0;
  while (tabs < 5) {
    await page.keyboard.press('Tab');
    tabs++;
    const focused = await page.evaluate(() => ({ id: document.activeElement?.id, text: document.activeElement?.textContent?.trim() }));
    if (focused.id === 'question') break;
    if (focused.text === 'Skip to the question') {
      await expect(page.getByRole('link', { name: 'Skip to the question' })).toBeInViewport();
      await page.keyboard.press('Enter');
      break;
    }
  }
  expect(tabs).toBeLessThanOrEqual(5);
  await expect(page.locator('#question')).toBeFocused();
  await page.keyboard.type('what did I store?');
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(page.locator('#results .route')).toBeVisible();

  await page.getByRole('textbox', { name: 'You', exact: true }).fill('Typed and sent from the keyboard');
  await page.getByRole('textbox', { name: 'You', exact: true }).press('ControlOrMeta+Enter');
  await expect(page.locator('#compose-status')).toContainText('Stored your message');
});

/** Visible interactive elements smaller than 24 by 24 CSS pixels, described for the failure message. */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const selector = 'a[href], button, select, textarea, summary, label.file-button, input:not([type="file"]):not([type="hidden"])';
    return [...document.querySelectorAll<HTMLElement>(selector)]
      .filter((element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden')
      .map((element) => ({ element, box: element.getBoundingClientRect() }))
      .filter(({ box }) => box.width < 24 || box.height < 24)
      .map(({ element, box }) => `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''} "${(element.textContent ?? element.getAttribute('aria-label') ?? '').trim().slice(0, 30)}" ${Math.round(box.width)}×${Math.round(box.height)}`);
  });
}

test('at 360 px no interactive target is under 24 by 24 px, with a history, results, settings and the sync panel open', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 780 });
  await page.goto('/');
  await waitReady(page);
  await loadSample(page);
  await page.getByRole('textbox', { name: 'Question' }).fill('What did my cat look like?');
  await page.getByRole('button', { name: 'Retrieve' }).click();
  await expect(page.locator('#results .route')).toBeVisible();
  for (const details of await page.locator('#results details').all()) await details.evaluate((element) => ((element as HTMLDetailsElement).open = true));
  await page.locator('#settings summary').click();
  await page.locator('#sync summary').click();
  await page.getByRole('textbox', { name: 'You', exact: true }).focus();
  await page.keyboard.press('Shift+Tab');
  expect(await smallTargets(page)).toEqual([]);
});

test('a file name with a right-to-left override stays in reading order, and a 300-character name stays one line with the full name in its tooltip', async ({ page }) => {
  await page.goto('/');
  await waitReady(page);
  const bytes = await (await import('node:fs/promises')).readFile(photo('sk_chelsea.jpg'));
  const tricky = 'invoice\u202Egpj.exe';
  const long = `${'a'.repeat(296)}.jpg`;
  await page.locator('#attach-images').setInputFiles([
    { name: tricky, mimeType: 'image/jpeg', buffer: bytes },
    { name: long, mimeType: 'image/jpeg', buffer: bytes },
  ]);
  const names = page.locator('#attachments .file-name');
  await expect(names).toHaveCount(2);
  // Shown as spelled, so the picture cannot pose as another kind of file.
  await expect(names.first()).toHaveText('invoicegpj.exe');
  await expect(names.first()).toHaveAttribute('title', 'invoicegpj.exe');
  await expect(names.first()).toHaveCSS('unicode-bidi', 'isolate');
  await expect(names.nth(1)).toHaveAttribute('title', long);
  const height = await names.nth(1).evaluate((element) => element.getBoundingClientRect().height);
  expect(height).toBeLessThan(24);
});
