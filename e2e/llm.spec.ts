/**
 * The OpenAI-compatible LLM setting: answers come from the configured endpoint, and the API key goes
 * nowhere else — not to the app's server, not into storage unless "remember" is ticked.
 */
import { expect, test, type Page } from '@playwright/test';
import { loadSample, SAMPLE_ROUNDS, waitReady } from './helpers.js';

const ENDPOINT = 'https://llm.example.test/v1';
const KEY = 'sk-test-0123456789-secret';

/** Opens the demo with the sample conversation, and sets ENDPOINT as the OpenAI-compatible LLM. */
async function openSampleWithEndpoint(page: Page, llm: { model: string; apiKey?: string; vision?: boolean }): Promise<void> {
  await page.goto('/');
  await waitReady(page);
  await loadSample(page);
  await page.getByText('Settings', { exact: true }).click();
  await page.getByLabel('Provider').selectOption('openai');
  await page.getByLabel('Base URL').fill(ENDPOINT);
  await page.getByLabel('Model', { exact: true }).fill(llm.model);
  if (llm.apiKey) await page.getByLabel('API key').fill(llm.apiKey);
  if (llm.vision) await page.getByLabel('The model accepts images').check();
  await page.getByRole('button', { name: 'Apply settings' }).click();
  await expect(page.locator('#memory-size')).toContainText(`sample: ${SAMPLE_ROUNDS} rounds`);
}

/** Answers every chat call to ENDPOINT with `reply`, handing each request body (and its Authorization header) to `onBody`. */
async function fakeEndpoint(page: Page, reply: string, onBody: (body: string, authorization: string | undefined) => void): Promise<void> {
  await page.route(`${ENDPOINT}/**`, async (route) => {
    const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };
    if (route.request().method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors });
    onBody(route.request().postData() ?? '', route.request().headers()['authorization']);
    return route.fulfill({
      status: 200,
      headers: { ...cors, 'Content-Type': 'application/json' },
      body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: reply } }] }),
    });
  });
}

test('an OpenAI-compatible endpoint answers from memory; the key is sent only there and not stored', async ({ page }) => {
  const sawKey: string[] = [];
  page.on('request', (request) => {
    const headers = JSON.stringify(request.headers()) + (request.postData() ?? '');
    if (headers.includes(KEY)) sawKey.push(request.url());
  });
  let prompt = '';
  await fakeEndpoint(page, 'Your cat Chelsea is a tabby with green eyes.', (body) => {
    prompt = body;
  });

  await openSampleWithEndpoint(page, { model: 'test-model', apiKey: KEY });

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

/** Width and height from a JPEG's start-of-frame marker. */
function jpegSize(bytes: Buffer): { width: number; height: number } {
  for (let at = 2; at + 9 < bytes.length; ) {
    if (bytes[at] !== 0xff) return { width: 0, height: 0 };
    const marker = bytes[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xc2) return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return { width: 0, height: 0 };
}

test('with a vision model, the answer call carries the retrieved photo as a JPEG of at most 768 px (the browser resizer is the default)', async ({ page }) => {
  const images: string[] = [];
  await fakeEndpoint(page, 'A tabby cat.', (body) => {
    for (const message of (JSON.parse(body || '{}') as { messages?: { content: unknown }[] }).messages ?? []) {
      for (const part of Array.isArray(message.content) ? message.content : []) {
        const url = (part as { image_url?: { url?: string } }).image_url?.url;
        if (url) images.push(url);
      }
    }
  });

  await openSampleWithEndpoint(page, { model: 'test-vision-model', vision: true });

  await page.getByRole('textbox', { name: 'Question' }).fill('What did my cat look like?');
  await page.getByRole('button', { name: 'Answer with LLM' }).click();
  await expect(page.locator('#results .answer')).toContainText('A tabby cat.');
  const attached = images.filter((url) => url.startsWith('data:image/'));
  expect(attached.length).toBeGreaterThan(0);
  for (const url of attached) {
    expect(url).toMatch(/^data:image\/jpeg;base64,/);
    const size = jpegSize(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'));
    expect(size.width).toBeGreaterThan(0);
    expect(Math.max(size.width, size.height)).toBeLessThanOrEqual(768);
  }
});

test('after a reload without "remember", the app asks for the key again and sends nothing without it', async ({ page }) => {
  const calls: (string | undefined)[] = [];
  await fakeEndpoint(page, 'Chelsea is a tabby.', (_body, authorization) => calls.push(authorization));
  await openSampleWithEndpoint(page, { model: 'test-model', apiKey: KEY });
  await page.reload();
  await waitReady(page);

  const reminder = page.locator('#alerts .notice').filter({ hasText: `The API key for ${ENDPOINT} was not remembered on this device` });
  await expect(reminder).toBeVisible();
  await page.getByRole('textbox', { name: 'Question' }).fill('What does my cat look like?');
  await page.getByRole('button', { name: 'Answer with LLM' }).click();
  const refused = page.locator('#ask-alerts [data-code="LLM_UNAVAILABLE"]');
  await expect(refused).toContainText('was not remembered on this device, so nothing was sent');
  await expect(refused).toBeInViewport();
  expect(calls).toEqual([]);

  await reminder.getByRole('button', { name: 'Enter the key' }).click();
  const keyField = page.getByLabel('API key');
  await expect(keyField).toBeFocused();
  await expect(page.locator('#llm-key-note')).toContainText('Enter the API key again');
  await keyField.fill(KEY);
  await page.getByRole('button', { name: 'Apply settings' }).click();
  await expect(page.locator('#llm-key-note')).toBeHidden();
  await expect(page.locator('#memory-size')).toContainText(`sample: ${SAMPLE_ROUNDS} rounds`);
  await page.getByRole('button', { name: 'Answer with LLM' }).click();
  await expect(page.locator('#results .answer')).toContainText('Chelsea is a tabby.');
  expect(calls.length).toBeGreaterThan(0);
  expect(calls.every((authorization) => authorization === `Bearer ${KEY}`)).toBe(true);
});
