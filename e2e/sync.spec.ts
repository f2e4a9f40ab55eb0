/**
 * The demo's "Sync with…" panel: two browser profiles (each a fresh context, with its own IndexedDB)
 * and a Node memory replicate one memory through a CouchDB-protocol server (express-pouchdb) that
 * the test starts on loopback, end-to-end encrypted with a sync passphrase. What one device adds, the
 * others find; what one forgets is gone everywhere; vectors travel, so no device encodes a round it
 * received; the server's stored bytes hold none of the test's words. The drop-in's example widget
 * syncs the same way, fetching PouchDB only when its page calls `memory.sync`.
 */
import { expect, test, type Browser, type Page } from '@playwright/test';
import { createMemory, type Memory } from '../src/index.js';
import { createNodeEmbeddedEncoders, loadNodeWordVectors } from '../src/node.js';
import { startTestSyncServer, type TestSyncServer } from '../src/sync/testing/server.js';
import { ask, photo, waitReady } from './helpers.js';

test.describe.configure({ mode: 'serial', timeout: 300_000 });

/** Kept apart from the unit tests' sync servers (5481–5483). */
const SYNC_PORT = Number(process.env.VMEM_E2E_SYNC_PORT ?? 5494);
const PASSPHRASE = 'correct horse battery staple';
const FROM_LAPTOP = 'My bicycle is a teal Gazelle Champion Mondial from 1987';
const FROM_AGENT = 'The plumber Quillon Vasquez comes on Thursday at nine';
const FROM_PHONE = 'The locker code at the climbing gym is 4471 Zephyrine';

let server: TestSyncServer;
let agent: Memory;
let database: string;
let createNodeMemory: () => Promise<Memory>;

test.beforeAll(async () => {
  server = await startTestSyncServer(SYNC_PORT);
  database = server.url('alice-memory');
  const { text, image } = createNodeEmbeddedEncoders();
  const wordVectors = await loadNodeWordVectors();
  createNodeMemory = () => createMemory({ textEncoder: text, imageEncoder: image, wordVectors });
  agent = await createNodeMemory();
});
test.afterAll(async () => {
  await agent?.close();
  await server?.stop();
});

async function openProfile(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error('page error:', error));
  await page.goto('/');
  await waitReady(page);
  return page;
}

const MOTORCYCLE = photo('sk_motorcycle_left.jpg');

async function addTyped(page: Page, text: string, photoPath?: string): Promise<void> {
  await page.getByRole('textbox', { name: 'You', exact: true }).fill(text);
  if (photoPath) await page.locator('#attach-images').setInputFiles(photoPath);
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#compose-status')).toContainText('Stored your message');
}

/** Fills the panel and syncs once; resolves when the status line says it is done. */
async function syncOnce(page: Page): Promise<void> {
  const panel = page.locator('#sync');
  if (!(await panel.evaluate((details) => (details as HTMLDetailsElement).open))) await panel.locator('summary').click();
  await page.getByLabel('CouchDB database address').fill(database);
  await page.getByLabel('Sync passphrase (optional, never sent)').fill(PASSPHRASE);
  const start = page.getByRole('button', { name: 'Sync now' });
  await start.click();
  // Disabled while the pass runs (set as the click starts it), enabled again when it is over.
  await expect(start).toBeEnabled({ timeout: 120_000 });
  await expect(page.locator('#sync-status')).toContainText(`Synced with ${database}`);
  await expect(page.locator('#sync-alerts .error')).toHaveCount(0);
}

/** What dropin-example.html's window holds: the drop-in's global and the widget's memory, once open. */
type WidgetPage = { vmem: typeof import('../app/dropin.js'); __dropin: { ready: ReturnType<typeof import('../app/dropin.js').openMemory> } };

const syncState = (page: Page) => page.evaluate(() => window.__vmem!.app.memory.syncState());
const historyTexts = (page: Page) => page.locator('#history .round').allTextContents();

test('two browser profiles and a Node memory converge through the server, encrypted, and a forget reaches every device', async ({ browser }) => {
  const laptop = await openProfile(browser);
  await addTyped(laptop, `${FROM_LAPTOP}, and here is my motorcycle`, MOTORCYCLE);
  await syncOnce(laptop);
  expect((await syncState(laptop)).pushed).toBe(1);

  const [agentRound] = await agent.add({ sessionId: 'agent', timestamp: Date.now(), user: { text: FROM_AGENT }, assistant: { text: 'Noted.' } });
  await agent.sync({ url: database, passphrase: PASSPHRASE }).done;
  expect(agent.size).toBe(2);
  expect(agent.syncState().reencoded).toBe(0);

  const phone = await openProfile(browser);
  await addTyped(phone, FROM_PHONE);
  await syncOnce(phone);
  await expect(phone.locator('#memory-size')).toContainText('default: 3 rounds');
  const phoneState = await syncState(phone);
  expect(phoneState).toMatchObject({ pulled: 2, pushed: 1, reencoded: 0 });
  const found = await ask(phone, { text: 'What kind of bicycle do I have?' });
  const rounds = await phone.evaluate(() => window.__vmem!.app.memory.rounds());
  const laptopRound = rounds.find((round) => round.user.text.startsWith(FROM_LAPTOP));
  expect(found.ranked[0]).toBe(laptopRound?.id);
  // The photo came with its bytes: the phone shows it and finds its round by another photo of it.
  const shown = phone.locator('#history .round').filter({ hasText: 'Gazelle' }).locator('img');
  await expect(shown).toHaveCount(1);
  await expect.poll(() => shown.evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
  expect((await ask(phone, { text: 'When did I show this?', image: photo('sk_motorcycle_right.jpg') })).ranked[0]).toBe(laptopRound?.id);

  // The phone forgets the agent's round; the laptop and the agent lose it at their next sync.
  const forget = phone.locator('#history .round').filter({ hasText: 'Quillon' }).getByRole('button', { name: /^Forget/ });
  phone.once('dialog', (dialog) => void dialog.accept());
  await forget.click();
  await expect(phone.locator('#memory-size')).toContainText('default: 2 rounds');
  await syncOnce(phone);
  await syncOnce(laptop);
  await expect(laptop.locator('#memory-size')).toContainText('default: 2 rounds');
  expect((await historyTexts(laptop)).join('\n')).toContain('Zephyrine');
  expect((await historyTexts(laptop)).join('\n')).not.toContain('Quillon');
  await agent.sync({ url: database, passphrase: PASSPHRASE }).done;
  expect(agent.size).toBe(2);
  expect(agent.has(agentRound!.id)).toBe(false);

  const stored = Buffer.concat(server.storedBytes());
  for (const marker of ['Gazelle', 'Quillon', 'Zephyrine', 'bicycle']) expect(stored.includes(marker), marker).toBe(false);
  // The bytes as stored (the demo may have re-encoded the file), read from the agent's copy.
  const laptopImage = (await agent.rounds()).flatMap((round) => round.user.images)[0]!;
  const photoBytes = (await agent.getImage(laptopImage.id))!.bytes;
  expect(photoBytes.length).toBeGreaterThan(4000);
  for (const at of [1000, photoBytes.length >> 1, photoBytes.length - 2000]) expect(stored.includes(Buffer.from(photoBytes.subarray(at, at + 32))), `photo bytes at ${at}`).toBe(false);
});

test('a live sync brings another device\'s round in without a click, and pauses and stops', async ({ browser }) => {
  const tablet = await openProfile(browser);
  await tablet.locator('#sync summary').click();
  await tablet.getByLabel('CouchDB database address').fill(database);
  await tablet.getByLabel('Sync passphrase (optional, never sent)').fill(PASSPHRASE);
  await tablet.getByLabel('Keep syncing while this page is open').check();
  await tablet.getByRole('button', { name: 'Sync now' }).click();
  await expect(tablet.locator('#sync-status')).toContainText('watching for changes', { timeout: 120_000 });
  await expect(tablet.locator('#memory-size')).toContainText('default: 2 rounds');

  await agent.add({ sessionId: 'agent', timestamp: Date.now(), user: { text: 'The dentist moved to Larkspur Street' }, assistant: { text: 'Noted.' } });
  await agent.sync({ url: database, passphrase: PASSPHRASE }).done;
  await expect(tablet.locator('#history')).toContainText('Larkspur', { timeout: 60_000 });

  await tablet.getByRole('button', { name: 'Pause' }).click();
  await expect(tablet.locator('#sync-status')).toContainText('Paused');
  await tablet.getByRole('button', { name: 'Resume' }).click();
  await tablet.getByRole('button', { name: 'Stop' }).click();
  await expect(tablet.getByRole('button', { name: 'Sync now' })).toBeEnabled();
  await expect(tablet.locator('#sync-status')).toContainText('Stopped');
});

test('the drop-in syncs once a page calls memory.sync, and only then fetches PouchDB', async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error('page error:', error));
  const pouchRequests: string[] = [];
  page.on('request', (request) => void (request.url().endsWith('/pouchdb.mjs') && pouchRequests.push(request.url())));
  // The drop-in's example widget: a page with the script tag and a few lines of its own, no bundler.
  await page.goto('/dropin-example.html');
  const widgetDatabase = server.url('widget-memory');
  const FROM_WIDGET = 'My order 5531 was sent to Ystad instead of Lund';
  await page.getByPlaceholder('Ask or tell us something').fill(FROM_WIDGET);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#widget-status')).toContainText('1 round remembered');
  expect(pouchRequests).toEqual([]);

  const pushed = await page.evaluate(async ({ url, passphrase }) => {
    const memory = await (window as unknown as WidgetPage).__dropin.ready;
    await memory.sync({ url, passphrase }).done;
    return memory.syncState().pushed;
  }, { url: widgetDatabase, passphrase: PASSPHRASE });
  expect(pushed).toBe(1);
  expect(pouchRequests).toHaveLength(1);

  const support = await createNodeMemory();
  try {
    await support.sync({ url: widgetDatabase, passphrase: PASSPHRASE }).done;
    expect(support.syncState()).toMatchObject({ pulled: 1, reencoded: 0 });
    const { blocks } = await support.retrieve('Where did my order go?');
    expect(blocks.flatMap((block) => block.rounds).map((round) => round.user.text)).toContain(FROM_WIDGET);

    await support.add({ sessionId: 'support', timestamp: Date.now(), user: { text: 'Resend order 5531 to Lund by courier' }, assistant: { text: 'Booked with Bring.' } });
    await support.sync({ url: widgetDatabase, passphrase: PASSPHRASE }).done;
  } finally {
    await support.close();
  }
  const answer = await page.evaluate(async ({ url, passphrase }) => {
    const memory = await (window as unknown as WidgetPage).__dropin.ready;
    await memory.sync({ url, passphrase }).done;
    const { blocks, trace } = await memory.retrieve('Which courier takes the order?');
    const topId = trace.find((entry) => entry.rank === 1)?.roundId;
    return { size: memory.size, top: blocks.flatMap((block) => block.rounds).find((round) => round.id === topId)?.assistant.text };
  }, { url: widgetDatabase, passphrase: PASSPHRASE });
  expect(answer).toEqual({ size: 2, top: 'Booked with Bring.' });
  expect(pouchRequests).toHaveLength(1);
  for (const marker of ['Ystad', 'courier', 'Bring']) expect(Buffer.concat(server.storedBytes()).includes(marker), marker).toBe(false);

  // Deleting the memory deletes its sync replica too: nothing of it stays in the browser.
  const databases = () => page.evaluate(async () => (await indexedDB.databases()).map((database) => database.name ?? ''));
  expect(await databases()).toEqual(expect.arrayContaining(['vmem:acme-support', '_pouch_vmem-sync-memory "acme-support"']));
  await page.evaluate(async () => {
    const widgetPage = window as unknown as WidgetPage;
    await (await widgetPage.__dropin.ready).close();
    await widgetPage.vmem.deleteMemory('acme-support');
  });
  expect((await databases()).filter((name) => name.includes('acme-support'))).toEqual([]);
  await context.close();
});
