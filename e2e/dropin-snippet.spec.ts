/**
 * The drop-in as docs/browser.md tells a third-party site to use it. The "Drop-in script" snippet is
 * read from the docs and pasted, as it stands, into a page that declares no charset (Chromium then
 * reads the page and its classic scripts as windows-1252), served from the snippet's own address
 * (`https://your.site/`, answered by the test from `dist-app/dropin/`). Then the same page under the
 * documented Content-Security-Policy on every response, with a photo as well; and under a policy
 * that blocks the worker, where the error must name the policy.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { APP_OUT_DIR } from '../vite.config.js';
import { FIXTURE_PHOTOS_DIR } from '../src/testing/shared-data.js';

const root = resolve(import.meta.dirname, '..');
const docs = readFileSync(join(root, 'docs/browser.md'), 'utf8');
const dropinSection = docs.slice(docs.indexOf('## Drop-in script'));
/** The snippet, verbatim: the first HTML block of the section. */
const SNIPPET = /```html\n([\s\S]*?)\n```/.exec(dropinSection)![1]!;
/** The documented policy: the first text block of its subsection. */
const DOCUMENTED_POLICY = /### Content-Security-Policy[\s\S]*?```text\n([^\n]+)\n```/.exec(dropinSection)![1]!;
const SITE = 'https://your.site/';
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm', '.jpg': 'image/jpeg' };

/** The host page: the snippet and nothing else, no `<meta charset>`, and `Content-Type` without one. */
function hostPage(): string {
  return `<!doctype html>\n<html>\n<head><title>A host page that declares no charset</title></head>\n<body>\n${SNIPPET}\n</body>\n</html>\n`;
}

/** Answers `https://your.site/` from the built drop-in folder, with `policy` on every response when given. */
async function serveSite(context: BrowserContext, policy?: (page: string) => string): Promise<void> {
  await context.route(`${SITE}**`, async (route) => {
    const path = decodeURIComponent(new URL(route.request().url()).pathname);
    const headers: Record<string, string> = policy ? { 'Content-Security-Policy': policy(hostPage()) } : {};
    if (path === '/') return route.fulfill({ status: 200, body: hostPage(), headers: { ...headers, 'Content-Type': 'text/html' } });
    const file = path.startsWith('/photos/') ? join(FIXTURE_PHOTOS_DIR, path.slice('/photos/'.length)) : path.startsWith('/vmem/dropin/') ? join(root, APP_OUT_DIR, 'dropin', normalize(path.slice('/vmem/dropin/'.length))) : '';
    if (!file || !statSync(file, { throwIfNoEntry: false })?.isFile()) return route.fulfill({ status: 404, headers });
    return route.fulfill({ status: 200, body: readFileSync(file), headers: { ...headers, 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' } });
  });
}

/** The snippet's inline script, allowed by its hash, as a host with a strict policy allows its own scripts. */
function withHostScript(policy: string): (page: string) => string {
  return (page) => {
    const inline = /<script>([\s\S]*?)<\/script>/.exec(page)![1]!;
    const hash = createHash('sha256').update(inline).digest('base64');
    return policy.replace("script-src 'self'", `script-src 'self' 'sha256-${hash}'`);
  };
}

/** Loads the host page and resolves with what the snippet logs. */
async function snippetLog(page: Page): Promise<string> {
  const logged = new Promise<string>((resolve) => page.on('console', (message) => message.type() === 'log' && resolve(message.text())));
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(SITE);
  return logged;
}

test.describe.configure({ timeout: 300_000 });

test('the documented snippet, pasted into a page that declares no charset, runs as it stands', async ({ context, page }) => {
  await serveSite(context);
  expect(await snippetLog(page)).toBe('My order #4417 never arrived');
  expect(await page.evaluate(() => document.characterSet)).toBe('windows-1252');
  // The script is ASCII, so the page's charset cannot garble it.
  expect([...readFileSync(join(root, APP_OUT_DIR, 'dropin/vmem.js'))].every((byte) => byte < 0x80)).toBe(true);
});

test('under the documented Content-Security-Policy on every response, the snippet runs, and a photo is stored and found', async ({ context, page }) => {
  const violations: string[] = [];
  page.on('console', (message) => message.type() === 'error' && /Content Security Policy/.test(message.text()) && violations.push(message.text()));
  await serveSite(context, withHostScript(DOCUMENTED_POLICY));
  expect(await snippetLog(page)).toBe('My order #4417 never arrived');
  const found = await page.evaluate(async () => {
    const photo = async (name: string) => ({ bytes: new Uint8Array(await (await fetch(`/photos/${name}`)).arrayBuffer()), mimeType: 'image/jpeg' });
    const memory = await (window as unknown as { vmem: typeof import('../app/dropin.js') }).vmem.openMemory('support-chat');
    await memory.add({ id: 'bike', user: { text: 'I bought a motorcycle', images: [{ id: 'bike-photo', ...(await photo('sk_motorcycle_left.jpg')) }] } });
    const result = await memory.retrieve({ image: await photo('sk_motorcycle_right.jpg') });
    return result.trace.find((entry) => entry.rank === 1)?.roundId;
  });
  expect(found).toBe('bike');
  expect(violations).toEqual([]);
});

test('under a policy that blocks the worker, the error names the policy and the directive', async ({ context, page }) => {
  await serveSite(context, withHostScript("default-src 'none'; script-src 'self'; worker-src 'none'"));
  await page.goto(SITE);
  const failure = await page.evaluate(() =>
    (window as unknown as { vmem: typeof import('../app/dropin.js') }).vmem.openMemory('blocked').then(
      () => 'opened',
      (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`,
    ),
  );
  expect(failure).toMatch(/^WORKER_FAILED: The encoder worker could not start: the page's Content-Security-Policy blocks https:\/\/your\.site\/vmem\/dropin\/encoder\.worker\.js \(directive worker-src; the policy is "default-src 'none'; script-src 'self' 'sha256-[^']+'; worker-src 'none'"\)/);
  expect(failure).not.toMatch(/Settings/);
});
