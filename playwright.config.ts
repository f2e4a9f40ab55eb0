/**
 * End-to-end tests of the browser product in Debian's Chromium, against `vite preview` of the
 * built app (`npm run build:app` first). Serial: the tests share one preview server and 2 cores.
 */
import { defineConfig } from '@playwright/test';
import { findChromium } from './scripts/chromium.js';

/**
 * Port of the preview server the tests use (kept apart from `npm start`'s 4173). `VMEM_E2E_PORT`
 * moves it, so two checkouts on one machine can run their e2e suites side by side.
 */
export const E2E_PORT = Number(process.env.VMEM_E2E_PORT ?? 4174);

/** Chromium flags for a quiet, offline-friendly headless run (Playwright adds --headless). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--no-first-run', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The browser every spec launches (`npm test` makes sure there is one; see scripts/chromium.ts). */
export const CHROMIUM_PATH = findChromium();

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 180_000,
  expect: { timeout: 60_000 },
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: `http://localhost:${E2E_PORT}`,
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    trace: 'off',
  },
  webServer: {
    command: `npx vite preview --port ${E2E_PORT} --strictPort`,
    url: `http://localhost:${E2E_PORT}/`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
  },
});
