/**
 * The browser killed (SIGKILL: no unload, nothing flushed) while a memory adds rounds one by one, so
 * while it writes index segments and, every eighth add, merges them in the background: the next start
 * finds every round whole or absent, in order, indexed exactly once, and the memory writable.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, E2E_PORT } from '../playwright.config.js';
import { killBrowser } from './helpers.js';

const BASE = `http://localhost:${E2E_PORT}/`;
const launch = (profile: string) => chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, baseURL: BASE });

async function benchPage(context: BrowserContext): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto('/bench.html');
  await page.waitForFunction(() => window.__bench !== undefined);
  return page;
}

const added = (page: Page) => page.evaluate(() => (window as unknown as { __added?: number }).__added ?? 0);

test('a browser killed while a memory writes segments and merges them: every round whole or absent, indexed once, the memory writable', async () => {
  test.skip(!readdirSync('/proc').length, 'needs /proc to find the browser');
  const profile = mkdtempSync(join(tmpdir(), 'vmem-index-crash-'));
  try {
    let stored = 0;
    // Three kills at different points of the adds (the eighth, 21st and 42nd add on from the last
    // start): mid-segment, mid-merge and in between, whichever each lands on.
    for (const after of [8, 21, 42]) {
      let context = await launch(profile);
      let page = await benchPage(context);
      void page.evaluate((total) => window.__bench!.addOneByOne('crash', total), 1_000).catch(() => undefined);
      await expect.poll(() => added(page), { timeout: 120_000, intervals: [5] }).toBeGreaterThanOrEqual(stored + after);
      killBrowser(profile);
      await context.close().catch(() => undefined);

      context = await launch(profile);
      page = await benchPage(context);
      const check = await page.evaluate(() => window.__bench!.checkStored('crash'));
      expect(check.problems).toEqual([]);
      // Nothing committed before the kill is lost (the add in flight may or may not be).
      expect(check.size).toBeGreaterThanOrEqual(stored + after);
      stored = check.size + 1;
      await context.close();
    }
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
});
