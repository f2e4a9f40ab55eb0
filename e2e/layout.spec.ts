/**
 * Layout and accessibility: usable at 360 px, every control named, and an answer from a 200-round
 * Mem-Gallery memory that stays readable. Each run keeps its screenshots in the test output
 * folder; only `npm run screenshots` (VMEM_SCREENSHOTS=1) refreshes the tracked ones under docs/.
 */
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { ask, memGallery, photo, screenshot, SCREENSHOT_VIEWPORTS, TINY_QUOTA, waitReady } from './helpers.js';

/** A Mem-Gallery dialogue of 201 rounds (78 caption-only images) and one of its questions. */
const DIALOGUE = 'Nature_Economics_Programming_Student_Life.json';
const QUESTION = 'What two species of albatrosses did Aiden photograph during his coastal birdwatching trip?';

/** Controls without an accessible name (label, aria-label, aria-labelledby, or text for buttons). */
function unnamedControls(): string[] {
  const controls = [...document.querySelectorAll<HTMLElement>('button, input, select, textarea, summary, a[href]')];
  return controls
    .filter((control) => {
      const input = control as HTMLInputElement;
      const labelled = (input.labels?.length ?? 0) > 0 || control.getAttribute('aria-label') || control.getAttribute('aria-labelledby');
      const text = ['BUTTON', 'SUMMARY', 'A'].includes(control.tagName) && control.textContent?.trim();
      return !labelled && !text;
    })
    .map((control) => control.outerHTML.slice(0, 80));
}

test('a 200-round Mem-Gallery memory answers readably at desktop and 360 px: the page fits, every control is named, the result stays short', { tag: '@screenshots' }, async ({ page }, testInfo) => {
  await page.goto('/');
  await waitReady(page);
  await page.locator('#import-dialogue').setInputFiles(memGallery(DIALOGUE));
  await expect(page.locator('#memory-alerts .notice').filter({ hasText: /^Imported 201 rounds/ })).toBeVisible({ timeout: 150_000 });
  for (const viewport of SCREENSHOT_VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const shown = await ask(page, { text: QUESTION });
    expect(shown.ranked.length).toBeGreaterThan(3);
    expect(await page.evaluate(unnamedControls)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    // Folded beyond the first hits, one caption per image: a few screens, not the 9,800 px of before.
    const resultHeight = await page.locator('#results').evaluate((results) => results.getBoundingClientRect().height);
    expect(resultHeight).toBeLessThan(viewport.height * 4);
    await page.locator('#ask-heading').scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, document.getElementById('ask-heading')!.getBoundingClientRect().top - 8));
    await screenshot(page, testInfo, `screenshot-${viewport.name}.png`);
  }
});

test('an error after "Add" (a full disk) shows beside the button, in view, at desktop and 360 px', { tag: '@screenshots' }, async ({ page, context }, testInfo) => {
  const devtools = await context.newCDPSession(page);
  await devtools.send('Storage.overrideQuotaForOrigin', { origin: `http://localhost:${E2E_PORT}`, quotaSize: TINY_QUOTA });
  await page.goto('/');
  await waitReady(page);
  await page.getByRole('textbox', { name: 'You', exact: true }).fill('Photos from the weekend by the sea');
  await page.locator('#attach-images').setInputFiles(['mate_Dune.jpg', 'sk_coffee.jpg', 'sk_rocket.jpg'].map(photo));
  await expect(page.locator('#attachments li')).toHaveCount(3);
  for (const viewport of SCREENSHOT_VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.getByRole('button', { name: 'Add to memory' }).click();
    const error = page.locator('#compose-alerts [data-code="QUOTA_EXCEEDED"]');
    await expect(error).toBeInViewport();
    await screenshot(page, testInfo, `screenshot-error-${viewport.name}.png`);
    await error.getByRole('button', { name: 'Dismiss message' }).click();
  }
});
