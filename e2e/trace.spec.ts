/** The trace reads on any screen: it fits the pane at 1280 and 360 px, lists each signal once per round and says what the scores mean. */
import { expect, test } from '@playwright/test';
import { loadSample, waitReady } from './helpers.js';

for (const width of [1280, 360]) {
  test(`at ${width} px the trace fits its pane with no horizontal scroll, each signal once per round, its scores explained`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/');
    await waitReady(page);
    await loadSample(page);
    await page.getByRole('textbox', { name: 'Question' }).fill('What did my cat look like?');
    await page.getByRole('button', { name: 'Retrieve' }).click();
    const trace = page.locator('#results details.trace-details');
    await trace.locator('summary').click();
    await expect(trace.locator('table.trace tbody tr').first()).toBeVisible();

    const fit = await page.evaluate(() => {
      const results = document.getElementById('results')!;
      const table = results.querySelector<HTMLElement>('table.trace')!;
      let scroller: HTMLElement | null = table;
      const overflowing: string[] = [];
      for (; scroller && scroller !== document.body; scroller = scroller.parentElement) {
        if (scroller.scrollWidth > scroller.clientWidth + 1) overflowing.push(`${scroller.tagName.toLowerCase()}.${scroller.className}`);
      }
      return { overflowing, tableRight: table.getBoundingClientRect().right, paneRight: results.getBoundingClientRect().right, page: document.documentElement.scrollWidth - document.documentElement.clientWidth };
    });
    expect(fit.overflowing).toEqual([]);
    expect(fit.tableRight).toBeLessThanOrEqual(fit.paneRight + 1);
    expect(fit.page).toBeLessThanOrEqual(0);

    const signalsPerRow = await trace.locator('table.trace tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll<HTMLElement>('.vote')].map((vote) => vote.dataset.signal)));
    for (const signals of signalsPerRow) expect(new Set(signals).size).toBe(signals.length);
    expect(signalsPerRow.some((signals) => signals.includes('dense'))).toBe(true);
    const legend = trace.locator('.trace-legend');
    await expect(legend).toContainText('dense: cosine similarity');
    await expect(legend).toContainText('BM25');
  });
}
