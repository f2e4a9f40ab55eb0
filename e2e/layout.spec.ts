/**
 * Layout and accessibility: usable at 360 px, every control named. Each run keeps its screenshots
 * in the test output folder; only `npm run screenshots` (VMEM_SCREENSHOTS=1) refreshes the tracked
 * ones under docs/.
 */
import { resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { ask, loadSample, waitReady } from './helpers.js';

const DOCS = resolve(import.meta.dirname, '../docs');
const REFRESH_DOCS = process.env.VMEM_SCREENSHOTS === '1';

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

for (const viewport of [
  { name: 'desktop', width: 1280, height: 900 },
  { name: '360', width: 360, height: 780 },
]) {
  test(`at ${viewport.name} width the page fits and every control has a name`, async ({ page }, testInfo) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.goto('/');
    await waitReady(page);
    await loadSample(page);
    await ask(page, { text: 'What did my cat look like?' });
    expect(await page.evaluate(unnamedControls)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await page.evaluate(() => window.scrollTo(0, 0));
    const file = `screenshot-${viewport.name}.png`;
    await page.screenshot({ path: REFRESH_DOCS ? resolve(DOCS, file) : testInfo.outputPath(file), fullPage: false });
  });
}
