import { withAblation } from 'vmem/internal';
import 'fake-indexeddb/auto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemory, type MemoryStorage, type StoredRound, type VmemProgress } from 'vmem';
import { createFileStorage } from 'vmem/node';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { syntheticImageEncoder } from '../testing/synthetic-rounds.js';
import { createIdbStorage, DATABASE_PREFIX, deleteMemory } from './idb.js';

/**
 * Memories stored by vmem at f68ba58 (before index segments), written by that commit's own code
 * (`src/storage/testing/f68ba58/generate.ts` made these fixtures; see there): they open after a
 * one-time rebuild of the index, with every round intact, and open fast after that. And a damaged
 * segment is reported as INDEX_CORRUPT and rebuilt from the stored rounds.
 */
const FIXTURES = fileURLToPath(new URL('./testing/f68ba58/', import.meta.url));
const expected = JSON.parse(await readFile(join(FIXTURES, 'expected.json'), 'utf8')) as {
  questions: string[];
  fileStore: { rounds: StoredRound[]; answers: { question: string; rounds: string[] }[] };
  indexedDb: { rounds: StoredRound[]; answers: { question: string; rounds: string[] }[] };
};

const folders: string[] = [];
const databases: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  for (const name of databases.splice(0)) await deleteMemory(name);
});

async function openWith(storage: MemoryStorage) {
  const textEncoder = createHashTextEncoder();
  const progress: VmemProgress[] = [];
  const memory = await createMemory({ textEncoder, imageEncoder: syntheticImageEncoder(8), storage, retrieval: { llmAnchors: false }, onProgress: (event) => progress.push(event) });
  return { memory, textEncoder, progress, index: progress.filter((event) => event.task === 'index') };
}

/**
 * Questions routed to another target since f68ba58: a picture named anywhere ("photo of the harbour")
 * now asks for a picture, so its context differs by design; only its best round is compared.
 */
const ROUTED_OTHERWISE_SINCE = new Set(['photo of the harbour at dusk']);

/** What f68ba58's memory returned: every round as it was, and the same hits for the same questions. */
async function expectAsStored(memory: Awaited<ReturnType<typeof openWith>>['memory'], stored: typeof expected.fileStore) {
  expect(await memory.rounds()).toEqual(stored.rounds);
  for (const { question, rounds } of stored.answers) {
    // f68ba58 read no times in questions ("on Tuesday"); compare with that off.
    const trace = (await memory.retrieve(question, withAblation({}, { timeExpressions: false }))).trace.map((entry) => entry.roundId);
    // Dense scores are now int8. This test encoder (64-d bag of words) makes many rounds score within
    // 0.003 of each other, which int8 reorders (two rounds tie at 0.80721 for the plumber question),
    // so the same rounds come back, a few near-ties in another order; the dev sets measure quality.
    expect(trace.slice(0, 3)).toContain(rounds[0]);
    if (ROUTED_OTHERWISE_SINCE.has(question)) continue;
    const kept = new Set(rounds);
    expect(trace.filter((roundId) => kept.has(roundId)).length).toBeGreaterThanOrEqual(0.8 * rounds.length);
  }
  const image = await memory.getImage('img10');
  expect(image?.bytes).toEqual(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 34 }, (_, i) => (i * 31 + 10) & 0xff)]));
}

async function fileStoreCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vmem-f68ba58-'));
  folders.push(dir);
  await cp(join(FIXTURES, 'file-store'), dir, { recursive: true });
  return dir;
}

/** A fresh IndexedDB database holding exactly the records f68ba58 wrote. */
async function indexedDbCopy(name: string): Promise<void> {
  databases.push(name);
  const dump = JSON.parse(await readFile(join(FIXTURES, 'idb.json'), 'utf8')) as { version: number; stores: Record<string, Record<string, unknown>[]> };
  const db = await openDB(DATABASE_PREFIX + name, dump.version, {
    upgrade(database) {
      database.createObjectStore('meta', { keyPath: 'key' });
      database.createObjectStore('images', { keyPath: 'id' }).createIndex('roundId', 'roundId');
      database.createObjectStore('chunks', { keyPath: 'key', autoIncrement: true }).createIndex('roundId', 'roundIds', { multiEntry: true });
    },
  });
  const decode = (value: unknown) => {
    const encoded = value as { blob?: string; bytes?: string };
    if (encoded?.blob !== undefined) return new Blob([Buffer.from(encoded.blob, 'base64')]);
    if (encoded?.bytes !== undefined) return new Uint8Array(Buffer.from(encoded.bytes, 'base64'));
    return value;
  };
  for (const [store, records] of Object.entries(dump.stores)) {
    for (const record of records) await db.put(store as never, Object.fromEntries(Object.entries(record).map(([key, value]) => [key, decode(value)])) as never);
  }
  db.close();
}

describe('a memory stored by f68ba58', () => {
  it('in a folder: opens after one rebuild of its index (with progress), every round intact, nothing re-encoded; then opens without one', async () => {
    const dir = await fileStoreCopy();
    const first = await openWith(await createFileStorage(dir));
    expect(first.index.map((event) => event.status)).toEqual(['initiate', 'progress', 'done']);
    expect(first.index[1]).toMatchObject({ loaded: 39, total: 39, unit: 'rounds' });
    expect(first.textEncoder.calls).toBe(0);
    await expectAsStored(first.memory, expected.fileStore);
    await first.memory.close();
    expect((await readdir(join(dir, 'segments'))).length).toBeGreaterThan(0);

    const again = await openWith(await createFileStorage(dir));
    expect(again.index).toEqual([]);
    expect(again.textEncoder.calls).toBe(0);
    await expectAsStored(again.memory, expected.fileStore);
    await again.memory.add({ id: 'after', user: { text: 'A new note about the red bicycle' } });
    await again.memory.close();
    expect((await (await openWith(await createFileStorage(dir))).memory.rounds()).map((round) => round.id)).toEqual([...expected.fileStore.rounds.map((round) => round.id), 'after']);
  });

  it('in IndexedDB: opens after one rebuild of its index, every round intact, nothing re-encoded; then opens without one', async () => {
    await indexedDbCopy('f68ba58');
    const first = await openWith(await createIdbStorage('f68ba58'));
    expect(first.index.map((event) => event.status)).toEqual(['initiate', 'progress', 'done']);
    expect(first.textEncoder.calls).toBe(0);
    await expectAsStored(first.memory, expected.indexedDb);
    await first.memory.close();

    const again = await openWith(await createIdbStorage('f68ba58'));
    expect(again.index).toEqual([]);
    await expectAsStored(again.memory, expected.indexedDb);
    await again.memory.close();
    const raw = await openDB(DATABASE_PREFIX + 'f68ba58');
    expect(await raw.count('chunks')).toBe(0);
    raw.close();
  });
});

describe('a damaged index segment', () => {
  it('in a folder: is reported as INDEX_CORRUPT naming the memory, and rebuilt from the stored rounds; nothing stored is lost', async () => {
    const dir = await fileStoreCopy();
    const rebuilt = await openWith(await createFileStorage(dir));
    await rebuilt.memory.close();
    const [segment] = await readdir(join(dir, 'segments'));
    const bytes = await readFile(join(dir, 'segments', segment!));
    bytes[bytes.length - 3]! ^= 0x5a;
    await writeFile(join(dir, 'segments', segment!), bytes);

    const opened = await openWith(await createFileStorage(dir));
    expect(opened.index[0]).toEqual({ status: 'initiate', task: 'index' });
    expect(opened.index[1]).toMatchObject({ status: 'failed', task: 'index', code: 'INDEX_CORRUPT', message: expect.stringContaining(`the memory folder ${dir}`) });
    expect(opened.index.slice(2).map((event) => event.status)).toEqual(['initiate', 'progress', 'done']);
    // The damaged segment's vectors are gone: its rounds were encoded again from their texts.
    expect(opened.textEncoder.calls).toBeGreaterThan(0);
    await expectAsStored(opened.memory, expected.fileStore);
    await opened.memory.close();
    expect(await readdir(join(dir, 'segments'))).not.toContain(segment);
    const healthy = await openWith(await createFileStorage(dir));
    expect(healthy.index).toEqual([]);
    await healthy.memory.close();
  });

  it('in IndexedDB: is reported as INDEX_CORRUPT naming the memory, and rebuilt', async () => {
    await indexedDbCopy('damaged');
    await (await openWith(await createIdbStorage('damaged'))).memory.close();
    const raw = await openDB(DATABASE_PREFIX + 'damaged');
    const [record] = await raw.getAll('segments');
    const bytes = new Uint8Array(await (record.bytes as Blob).arrayBuffer());
    bytes[100]! ^= 0xff;
    await raw.put('segments', { ...record, bytes: new Blob([bytes]) });
    raw.close();

    const opened = await openWith(await createIdbStorage('damaged'));
    expect(opened.index[1]).toMatchObject({ status: 'failed', code: 'INDEX_CORRUPT', message: expect.stringContaining('memory "damaged"') });
    await expectAsStored(opened.memory, expected.indexedDb);
    await opened.memory.close();
  });
});
