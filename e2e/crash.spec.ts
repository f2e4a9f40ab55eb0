/**
 * The browser killed (SIGKILL, no unload, nothing flushed) in the middle of the demo's work: the next
 * start counts what is really stored, and says what was not.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, E2E_PORT } from '../playwright.config.js';
import { killBrowser, memGallery, waitReady } from './helpers.js';

const BASE = `http://localhost:${E2E_PORT}/`;
/** 201 rounds, imported in batches of 64; the memory is named after the dialogue. */
const FILE = 'Nature_Economics_Programming_Student_Life.json';
const MEMORY = 'Nature_Economics_Programming_Student_Life';
const ROUNDS = 201;

const launch = (profile: string) => chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, baseURL: BASE });

async function openApp(context: BrowserContext): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto('/');
  await waitReady(page);
  return page;
}

const memorySize = (page: Page) => page.evaluate(() => window.__vmem!.app.session?.memory.size ?? 0);

test.describe.configure({ mode: 'serial' });

for (const [point, atLeast] of [
  ['after the first batch', 1],
  ['after the third batch', 3 * 64],
] as const) {
  test(`a browser killed during an import ${point}: the next start counts the rounds really stored`, async () => {
    test.skip(!readdirSync('/proc').length, 'needs /proc to find the browser');
    const profile = mkdtempSync(join(tmpdir(), 'vmem-crash-'));
    try {
      let context = await launch(profile);
      let page = await openApp(context);
      await page.locator('#import-dialogue').setInputFiles(memGallery(FILE));
      await expect.poll(() => memorySize(page), { timeout: 150_000, intervals: [50] }).toBeGreaterThanOrEqual(atLeast);
      killBrowser(profile);
      await context.close().catch(() => undefined);

      context = await launch(profile);
      page = await openApp(context);
      await page.getByRole('combobox', { name: 'Open memory' }).selectOption(MEMORY);
      // Choosing the memory the app reopened at start opens it again: wait until that open is done.
      await page.waitForFunction((name) => window.__vmem!.app.session?.name === name, MEMORY);
      await expect(page.locator('#memory-size')).toContainText(`${MEMORY}:`);
      const stored = await memorySize(page);
      expect(stored).toBeGreaterThanOrEqual(atLeast);
      const notice = page.locator('#memory-alerts .notice').filter({ hasText: `The import of "${FILE}" into memory "${MEMORY}"` });
      if (stored < ROUNDS) await expect(notice).toContainText(`did not finish: ${stored} of ${ROUNDS} rounds are stored.`);
      else await expect(notice).toContainText(`finished before the page closed: all ${ROUNDS} rounds are stored.`);
      await context.close();
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });
}
