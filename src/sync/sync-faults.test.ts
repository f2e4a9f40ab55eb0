import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type MemoryStorage, type RoundInput } from 'vmem';
import { createFileStorage } from 'vmem/node';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { readFixturePhoto } from '../testing/shared-data.js';
import { startTestSyncServer, type TestSyncServer } from './testing/server.js';

const PHOTO = readFixturePhoto('sk_coffee.jpg');
const marker = (i: number) => `zqsyncmarker${i}x`;
const PASSPHRASE = 'correct horse battery staple';
let sealed: TestSyncServer;
let plain: TestSyncServer;
const folders: string[] = [];

beforeAll(async () => {
  [sealed, plain] = await Promise.all([startTestSyncServer(5482), startTestSyncServer(5483)]);
}, 30_000);
afterAll(async () => {
  await Promise.all([sealed?.stop(), plain?.stop(), ...folders.map((dir) => rm(dir, { recursive: true, force: true }))]);
});

const rounds = (count: number): RoundInput[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `${marker(i)}id`,
    sessionId: `${marker(i)}session`,
    timestamp: 1_700_000_000_000 + i * 60_000,
    user: { text: `${marker(i)}user asks`, ...(i % 3 === 0 ? { images: [{ bytes: PHOTO, mimeType: 'image/jpeg', caption: `${marker(i)}caption` }] } : {}) },
    assistant: { text: `${marker(i)}assistant answers` },
  }));

async function lockedMemory() {
  const dir = await mkdtemp(join(tmpdir(), 'vmem-sync-sealed-'));
  folders.push(dir);
  return createMemory({ textEncoder: createHashTextEncoder(), storage: await createFileStorage(dir, { encryption: { passphrase: PASSPHRASE } }) });
}

/** Whether any stored file holds `needle`, as bytes or as base64 (attachments may be kept either way). */
function holds(files: Buffer[], needle: Uint8Array): boolean {
  const forms = [Buffer.from(needle), Buffer.from(Buffer.from(needle).toString('base64').slice(4, 40))];
  return files.some((file) => forms.some((form) => file.includes(form)));
}

describe('sync end-to-end encryption', () => {
  it('the server stores none of the markers, photo slices or vector slices; a device with the passphrase reads everything', async () => {
    const input = rounds(12);
    const vector = (await createHashTextEncoder().embed([input[1]!.user.text!]))[0]!;
    const needles = [
      ...input.map((_, i) => new TextEncoder().encode(marker(i))),
      PHOTO.subarray(1000, 1032),
      PHOTO.subarray(PHOTO.length - 40, PHOTO.length - 8),
      new Uint8Array(vector.buffer).subarray(0, 32),
    ];
    // The control: the same memory synced without a passphrase leaves them readable, so the scan can see them.
    const open = await createMemory({ textEncoder: createHashTextEncoder() });
    await open.add(input);
    await open.sync({ url: plain.url('open') }).done;
    await open.close();
    const plainFiles = plain.storedBytes();
    expect(needles.filter((needle) => holds(plainFiles, needle)).length).toBeGreaterThanOrEqual(needles.length - 1);

    const a = await lockedMemory();
    await a.add(input);
    await a.sync({ url: sealed.url('sealed'), passphrase: PASSPHRASE }).done;
    const files = sealed.storedBytes();
    expect(needles.filter((needle) => holds(files, needle))).toEqual([]);

    const b = await lockedMemory();
    await expect(b.sync({ url: sealed.url('sealed'), passphrase: 'wrong passphrase' }).done).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    await b.sync({ url: sealed.url('sealed'), passphrase: PASSPHRASE }).done;
    expect(b.size).toBe(12);
    const photo = (await b.get(`${marker(0)}id`))!.user.images[0]!;
    expect((await b.getImage(photo.id))!.bytes).toEqual(PHOTO);
    await Promise.all([a.close(), b.close()]);
  }, 90_000);
});

describe('sync faults', () => {
  it('a server killed mid-sync loses nothing: the next sync resumes and a fresh device gets every round', async () => {
    const url = sealed.url('faults');
    const a = await createMemory({ textEncoder: createHashTextEncoder() });
    await a.add(rounds(200));
    let killed: Promise<void> | undefined;
    const first = a.sync({
      url,
      onProgress: (event) => {
        // Once the replication has sent some documents (the first 200 reports are the memory's own rounds entering the replica).
        if (event.status === 'progress' && event.loaded > 230 && !killed) killed = sealed.kill();
      },
    });
    await expect(first.done).rejects.toMatchObject({ code: 'SYNC_UNREACHABLE' });
    await killed;
    await sealed.restart();
    const second = a.sync({ url });
    await second.done;
    // The memory's rounds were in the replica already: only the replication had to go on.
    expect(a.syncState().pushed).toBe(0);
    const b = await createMemory({ textEncoder: createHashTextEncoder() });
    await b.sync({ url }).done;
    expect(b.size).toBe(200);
    await Promise.all([a.close(), b.close()]);
  }, 90_000);
  it('a server that goes away between two batches of a pull leaves no unhandled rejection behind', async () => {
    const url = sealed.url('gone-between-batches');
    const a = await createMemory({ textEncoder: createHashTextEncoder() });
    await a.add(rounds(250).map((round) => ({ ...round, user: { text: round.user.text! } })));
    await a.sync({ url }).done;
    await a.close();
    // In front of the server: once the first batch of documents has gone out, every request is cut
    // off, as a server that dies then would. PouchDB 9 asks the source for its info after each batch
    // without a catch, so a rejection nobody handles would be left (and a Node process would exit).
    let cutOff = false;
    const target = new URL(url);
    const proxy: Server = createServer((incoming, outgoing) => {
      if (cutOff) return void incoming.socket.destroy();
      const upstream = request({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
        if (incoming.method === 'POST' && incoming.url?.includes('/_bulk_get')) answer.on('end', () => (cutOff = true));
      });
      incoming.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const b = await createMemory({ textEncoder: createHashTextEncoder() });
      const through = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${target.pathname}`;
      await expect(b.sync({ url: through }).done).rejects.toMatchObject({ code: 'SYNC_UNREACHABLE' });
      expect(cutOff).toBe(true);
      // Unhandled rejections are reported after the microtasks of the turn that made them.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(unhandled).toEqual([]);
      await b.close();
    } finally {
      process.off('unhandledRejection', listener);
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 60_000);
});


describe('sync faults on the device', () => {
  it('a device that fails mid-write while taking rounds in loses nothing: reopened, it takes the rest from its replica', async () => {
    const url = sealed.url('device-faults');
    const a = await createMemory({ textEncoder: createHashTextEncoder() });
    await a.add(rounds(150));
    await a.sync({ url }).done;
    await a.close();

    const dir = await mkdtemp(join(tmpdir(), 'vmem-sync-crash-'));
    folders.push(dir);
    const replica = join(dir, 'replica');
    // The device's store dies on its second write of received rounds (as a killed tab or process would stop).
    let writes = 0;
    const dying = (storage: MemoryStorage): MemoryStorage =>
      new Proxy(storage, {
        get(target, name, receiver) {
          if (name === 'putRounds') {
            return (...args: Parameters<MemoryStorage['putRounds']>) => {
              if (++writes === 2) return Promise.reject(new Error('the process died here'));
              return target.putRounds(...args);
            };
          }
          const value = Reflect.get(target, name, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const storage = await createFileStorage(dir);
    const b = await createMemory({ textEncoder: createHashTextEncoder(), storage: dying(storage) });
    await expect(b.sync({ url, replica }).done).rejects.toThrow();
    const partial = b.size;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(150);
    await b.close();

    const reopened = await createMemory({ textEncoder: createHashTextEncoder(), storage: await createFileStorage(dir) });
    expect(reopened.size).toBe(partial);
    await reopened.sync({ url, replica }).done;
    expect(reopened.size).toBe(150);
    expect(new Set((await reopened.rounds()).map((round) => round.id)).size).toBe(150);
    // Nothing the crash left untaken was sent as a forget: the server still gives a fresh device all of them.
    const fresh = await createMemory({ textEncoder: createHashTextEncoder() });
    await fresh.sync({ url }).done;
    expect(fresh.size).toBe(150);
    await Promise.all([reopened.close(), fresh.close()]);
  }, 90_000);
});
