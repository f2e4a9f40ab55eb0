/** Layout and accessibility: usable at 360 px, every control named; screenshots for the README. */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { ask, loadSample, waitReady } from './helpers.js';

const DOCS = resolve(import.meta.dirname, '../docs');

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
  test(`at ${viewport.name} width the page fits, every control has a name; screenshot saved`, async ({ page }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.goto('/');
    await waitReady(page);
    await loadSample(page);
    await ask(page, { text: 'What did my cat look like?' });
    expect(await page.evaluate(unnamedControls)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await page.evaluate(() => window.scrollTo(0, 0));
    mkdirSync(DOCS, { recursive: true });
    await page.screenshot({ path: resolve(DOCS, `screenshot-${viewport.name}.png`), fullPage: false });
  });
}
