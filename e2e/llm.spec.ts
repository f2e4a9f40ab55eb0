/**
 * The OpenAI-compatible LLM setting: answers come from the configured endpoint, and the API key goes
 * nowhere else — not to the app's server, not into storage unless "remember" is ticked.
 */
import { expect, test } from '@playwright/test';
import { loadSample, waitReady } from './helpers.js';

const ENDPOINT = 'https://llm.example.test/v1';
const KEY = 'sk-test-0123456789-secret';

test('an OpenAI-compatible endpoint answers from memory; the key is sent only there and not stored', async ({ page }) => {
  const sawKey: string[] = [];
  page.on('request', (request) => {
    const headers = JSON.stringify(request.headers()) + (request.postData() ?? '');
    if (headers.includes(KEY)) sawKey.push(request.url());
  });
  let prompt = '';
  await page.route(`${ENDPOINT}/**`, async (route) => {
    const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };
    if (route.request().method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors });
    prompt = route.request().postData() ?? '';
    return route.fulfill({
      status: 200,
      headers: { ...cors, 'Content-Type': 'application/json' },
      body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Your cat Chelsea is a tabby with green eyes.' } }] }),
    });
  });

  await page.goto('/');
  await waitReady(page);
  await loadSample(page);
  await page.getByText('Settings', { exact: true }).click();
  await page.getByLabel('Provider').selectOption('openai');
  await page.getByLabel('Base URL').fill(ENDPOINT);
  await page.getByLabel('Model', { exact: true }).fill('test-model');
  await page.getByLabel('API key').fill(KEY);
  await page.getByRole('button', { name: 'Apply settings' }).click();
  await expect(page.locator('#memory-size')).toContainText('sample: 14 rounds');

  await page.getByRole('textbox', { name: 'Question' }).fill('What does my cat look like?');
  await page.getByRole('button', { name: 'Answer with LLM' }).click();
  await expect(page.locator('#results .answer')).toContainText('Chelsea is a tabby');
  expect(prompt).toContain('Chelsea');

  expect(sawKey.length).toBeGreaterThan(0);
  expect(sawKey.every((url) => url.startsWith(`${ENDPOINT}/`))).toBe(true);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  expect(stored).not.toContain(KEY);
  expect(stored).toContain(ENDPOINT);
});
