import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { VmemError } from '../errors.js';
import type { StoredRound, StoredUnit } from '../types.js';
import { decodeMemoryFile, exportMemory, importMemory } from './idb-file.js';
import { DATABASE_PREFIX, DATABASE_VERSION, createIdbStorage, deleteMemory, listMemories, toStorageError } from './idb.js';
import { SCHEMA_VERSION, type Manifest, type RoundRecord } from './types.js';

const manifest: Manifest = {
  schemaVersion: SCHEMA_VERSION,
  encoders: { text: { id: 'test-text', dimension: 3 }, image: { id: 'test-image', dimension: 2 } },
  createdAt: 1_700_000_000_000,
};

function record(seq: number, options: { withImage?: boolean } = {}): RoundRecord {
  const id = `r${seq}`;
  const imageId = `${id}-img`;
  const round: StoredRound = {
    id,
    seq,
    sessionId: 'default',
    timestamp: 1_700_000_000_000 + seq,
    user: {
      text: `user text ${seq}`,
      images: options.withImage ? [{ id: imageId, roundId: id, role: 'user', caption: 'a cat', mimeType: 'image/jpeg', hasBytes: true }] : [],
    },
    assistant: { text: `assistant text ${seq}`, images: [] },
  };
  const units: StoredUnit[] = [
    { id: `${id}-u`, roundId: id, lane: 'text', kind: 'text', role: 'user', text: round.user.text, vector: new Float32Array([seq, 0.5, -1]) },
  ];
  if (options.withImage) units.push({ id: `${id}-i`, roundId: id, lane: 'image', kind: 'image', role: 'user', imageId, vector: new Float32Array([0.6, 0.8]) });
  return { round, units, images: options.withImage ? [{ id: imageId, bytes: new Uint8Array([0xff, 0xd8, 0xff, seq]), mimeType: 'image/jpeg' }] : [] };
}

const names: string[] = [];
async function fresh(name: string) {
  names.push(name);
  return createIdbStorage(name);
}

afterEach(async () => {
  for (const name of names.splice(0)) await deleteMemory(name);
});

describe('createIdbStorage', () => {
  it('keeps rounds, vectors and images across a reopen, in seq order', async () => {
    const storage = await fresh('reopen');
    await storage.writeManifest(manifest);
    await storage.putRounds([record(2, { withImage: true }), record(1)]);
    await storage.close();

    const reopened = await createIdbStorage('reopen');
    expect(await reopened.readManifest()).toEqual(manifest);
    const { rounds, units } = await reopened.loadAll();
    expect(rounds.map((r) => r.id)).toEqual(['r1', 'r2']);
    const imageUnit = units.find((u) => u.kind === 'image');
    expect(imageUnit?.vector).toBeInstanceOf(Float32Array);
    expect(Array.from(imageUnit!.vector)).toEqual([Float32Array.of(0.6)[0], Float32Array.of(0.8)[0]]);
    expect(Array.from((await reopened.getImage('r2-img'))!.bytes)).toEqual([0xff, 0xd8, 0xff, 2]);
    await reopened.close();
  });

  it('writes a batch all or nothing: an unstorable value leaves no round behind', async () => {
    const storage = await fresh('atomic');
    await storage.putRounds([record(1)]);
    const bad = record(3);
    // A function cannot be cloned into IndexedDB: the second record fails mid-batch.
    const poisoned = { ...bad, round: { ...bad.round, meta: { bad: (() => 1) as unknown as string } } };
    await expect(storage.putRounds([record(2), poisoned])).rejects.toThrow(VmemError);
    const { rounds, units } = await storage.loadAll();
    expect(rounds.map((r) => r.id)).toEqual(['r1']);
    expect(units.map((u) => u.roundId)).toEqual(['r1']);
    await storage.close();
  });

  it('forgets a round with its units and image bytes', async () => {
    const storage = await fresh('forget');
    await storage.putRounds([record(1, { withImage: true }), record(2)]);
    await storage.deleteRound('r1');
    const { rounds, units } = await storage.loadAll();
    expect(rounds.map((r) => r.id)).toEqual(['r2']);
    expect(units.every((u) => u.roundId === 'r2')).toBe(true);
    expect(await storage.getImage('r1-img')).toBeUndefined();
    await storage.close();
  });

  it('refuses an edit or deletion from a tab whose copy is stale, writing nothing; with concurrentAdds "refuse", new rounds too', async () => {
    const tabA = await fresh('two-tabs');
    await tabA.putRounds([record(1)]);
    const tabB = await createIdbStorage('two-tabs');
    const strictB = await createIdbStorage('two-tabs', { concurrentAdds: 'refuse' });
    await tabB.loadAll();
    await strictB.loadAll();
    await tabA.putRounds([record(2)]);
    await expect(tabB.deleteRound('r1')).rejects.toMatchObject({ code: 'MEMORY_LOCKED' });
    await expect(tabB.putRounds([{ ...record(1), round: { ...record(1).round, sessionId: 'edited' } }])).rejects.toMatchObject({ code: 'MEMORY_LOCKED' });
    await expect(strictB.putRounds([record(3)])).rejects.toMatchObject({ code: 'MEMORY_LOCKED' });
    expect((await tabA.loadAll()).rounds.map((r) => [r.id, r.sessionId])).toEqual([
      ['r1', 'default'],
      ['r2', 'default'],
    ]);
    // After reloading, tab B is current again and may write.
    await tabB.loadAll();
    await tabB.deleteRound('r1');
    expect((await tabA.loadAll()).rounds.map((r) => r.id)).toEqual(['r2']);
    for (const tab of [tabA, tabB, strictB]) await tab.close();
  });

  it('stores new rounds from a stale tab after the rounds stored meanwhile, and refuses an id stored meanwhile with DUPLICATE_ROUND', async () => {
    const tabA = await fresh('merge-tabs');
    const tabB = await createIdbStorage('merge-tabs');
    await tabB.loadAll();
    await tabA.putRounds([record(1), record(2)]);
    // Tab B numbered its round from its own (empty) copy: seq 0, before what tab A stored meanwhile.
    await tabB.putRounds([{ ...record(7), round: { ...record(7).round, seq: 0 } }]);
    await expect(tabB.putRounds([record(2)])).rejects.toMatchObject({ code: 'DUPLICATE_ROUND' });
    const stored = (await tabA.loadAll()).rounds;
    expect(stored.map((r) => [r.id, r.seq])).toEqual([
      ['r1', 1],
      ['r2', 2],
      ['r7', 3],
    ]);
    await tabA.close();
    await tabB.close();
  });

  it('lists and deletes named memories; a closed storage says so', async () => {
    const alice = await fresh('alice');
    const bob = await fresh('bob');
    await bob.close();
    expect(await listMemories()).toEqual(expect.arrayContaining(['alice', 'bob']));
    await deleteMemory('bob');
    expect(await listMemories()).not.toContain('bob');
    await alice.close();
    await expect(alice.loadAll()).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('rejects an empty memory name', async () => {
    await expect(createIdbStorage('  ')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('storage layout versions', () => {
  it('migrates a layout-1 memory (a record per unit) on open, keeping rounds, vectors and images', async () => {
    names.push('legacy');
    const legacy = await openDB(DATABASE_PREFIX + 'legacy', 1, {
      upgrade(db) {
        db.createObjectStore('meta', { keyPath: 'key' });
        db.createObjectStore('rounds', { keyPath: 'id' }).createIndex('seq', 'seq');
        db.createObjectStore('units', { keyPath: 'id' }).createIndex('roundId', 'roundId');
        db.createObjectStore('images', { keyPath: 'id' }).createIndex('roundId', 'roundId');
      },
    });
    const records = [record(1, { withImage: true }), record(2)];
    await legacy.put('meta', { key: 'manifest', manifest });
    await legacy.put('meta', { key: 'revision', revision: 4 });
    for (const { round, units, images } of records) {
      await legacy.put('rounds', round);
      for (const unit of units) await legacy.put('units', unit);
      for (const image of images) await legacy.put('images', { ...image, roundId: round.id });
    }
    legacy.close();

    const storage = await createIdbStorage('legacy');
    expect(await storage.readManifest()).toEqual(manifest);
    const { rounds, units } = await storage.loadAll();
    expect(rounds).toEqual(records.map((r) => r.round));
    const plain = (list: readonly StoredUnit[]) => list.map((u) => ({ ...u, vector: Array.from(u.vector) })).sort((a, b) => a.id.localeCompare(b.id));
    expect(plain(units)).toEqual(plain(records.flatMap((r) => r.units)));
    expect(Array.from((await storage.getImage('r1-img'))!.bytes)).toEqual([0xff, 0xd8, 0xff, 1]);
    // Still writable (the revision carried over) and forgetting still drops the image.
    await storage.deleteRound('r1');
    expect(await storage.getImage('r1-img')).toBeUndefined();
    await storage.close();
    const raw = await openDB(DATABASE_PREFIX + 'legacy');
    expect(raw.version).toBe(DATABASE_VERSION);
    const stores = [...raw.objectStoreNames].sort();
    raw.close();
    expect(stores).toEqual(['chunks', 'images', 'meta']);
  });

  it('keeps rounds written one by one in chunks, merges small chunks without changing content, and forgets from inside a chunk', async () => {
    const storage = await fresh('chunks');
    for (let seq = 1; seq <= 40; seq++) await storage.putRounds([record(seq, { withImage: seq % 10 === 0 })]);
    const before = await storage.loadAll();
    await storage.compact();
    const raw = await openDB(DATABASE_PREFIX + 'chunks');
    const chunkCount = await raw.count('chunks');
    raw.close();
    expect(chunkCount).toBe(1);
    expect(await storage.loadAll()).toEqual(before);
    // Rewriting and forgetting rounds that now share a chunk touches only those rounds.
    await storage.putRounds([{ ...record(5), round: { ...record(5).round, user: { text: 'edited', images: [] } } }]);
    await storage.deleteRound('r10');
    const { rounds, units } = await storage.loadAll();
    expect(rounds.map((r) => r.seq)).toEqual([...Array(40).keys()].map((i) => i + 1).filter((seq) => seq !== 10));
    expect(rounds.find((r) => r.id === 'r5')?.user.text).toBe('edited');
    expect(units.filter((u) => u.roundId === 'r10')).toEqual([]);
    // Every vector left is still its own round's, though forgetting and rewriting cut the chunk's bytes.
    const vectorOf = (list: readonly StoredUnit[]) => new Map(list.map((u) => [u.id, Array.from(u.vector)]));
    expect(vectorOf(units)).toEqual(vectorOf([...Array(40).keys()].filter((i) => i !== 9).flatMap((i) => record(i + 1, { withImage: (i + 1) % 10 === 0 }).units)));
    expect(await storage.getImage('r10-img')).toBeUndefined();
    expect(await storage.getImage('r20-img')).toBeDefined();
    await storage.close();
  });

  it('migrates a layout-2 memory (vectors in a Float32Array) on open to Blob-held vectors, same content', async () => {
    names.push('layout2');
    const records = [record(1, { withImage: true }), record(2), record(3)];
    const v2 = await openDB(DATABASE_PREFIX + 'layout2', 2, {
      upgrade(db) {
        db.createObjectStore('meta', { keyPath: 'key' });
        db.createObjectStore('images', { keyPath: 'id' }).createIndex('roundId', 'roundId');
        db.createObjectStore('chunks', { keyPath: 'key', autoIncrement: true }).createIndex('roundId', 'roundIds', { multiEntry: true });
      },
    });
    const all = records.flatMap((r) => r.units);
    const floats = new Float32Array(all.reduce((sum, u) => sum + u.vector.length, 0));
    let at = 0;
    for (const u of all) floats.set(u.vector, (at += u.vector.length) - u.vector.length);
    await v2.put('meta', { key: 'manifest', manifest });
    await v2.put('chunks', {
      roundIds: records.map((r) => r.round.id),
      rounds: records.map((r) => r.round),
      unitCounts: records.map((r) => r.units.length),
      units: all.map(({ vector: _vector, ...facts }) => facts),
      lengths: all.map((u) => u.vector.length),
      vectors: floats,
    } as never);
    v2.close();

    const storage = await createIdbStorage('layout2');
    const { rounds, units } = await storage.loadAll();
    expect(rounds).toEqual(records.map((r) => r.round));
    expect(units).toEqual(all);
    await storage.deleteRound('r2');
    expect((await storage.loadAll()).units).toEqual(all.filter((u) => u.roundId !== 'r2'));
    await storage.close();
    const raw = await openDB(DATABASE_PREFIX + 'layout2');
    expect(raw.version).toBe(DATABASE_VERSION);
    expect((await raw.getAll('chunks')).every((chunk) => chunk.vectors instanceof Blob)).toBe(true);
    raw.close();
  });

  it('loads in stages: rounds and unit facts first, then the vectors in the same order', async () => {
    const storage = await fresh('staged');
    await storage.putRounds([record(3), record(1, { withImage: true })]);
    await storage.putRounds([record(2)]);
    const staged = await storage.loadStaged();
    expect(staged.rounds.map((r) => r.id)).toEqual(['r1', 'r2', 'r3']);
    const expected = [record(1, { withImage: true }), record(2), record(3)].flatMap((r) => r.units);
    expect(staged.units).toEqual(expected.map(({ vector: _vector, ...facts }) => facts));
    expect((await staged.vectors).map((v) => Array.from(v))).toEqual(expected.map((u) => Array.from(u.vector)));
    await storage.close();
  });

  it('refuses a stored chunk whose vector bytes do not fit its units, as a storage error', async () => {
    const storage = await fresh('corrupt');
    await storage.putRounds([record(1)]);
    const raw = await openDB(DATABASE_PREFIX + 'corrupt');
    const [chunk] = await raw.getAll('chunks');
    await raw.put('chunks', { ...chunk, vectors: new Blob([new Float32Array(2)]) });
    raw.close();
    await expect(storage.loadAll()).rejects.toMatchObject({ code: 'STORAGE_FAILED', message: expect.stringMatching(/vectors/) });
    await storage.close();
  });

  it('refuses a memory saved by a newer vmem with advice, leaving it untouched', async () => {
    names.push('future');
    const future = await openDB(DATABASE_PREFIX + 'future', DATABASE_VERSION + 1, { upgrade: (db) => void db.createObjectStore('meta') });
    future.close();
    await expect(createIdbStorage('future')).rejects.toMatchObject({ code: 'STORAGE_FAILED', message: expect.stringMatching(/newer version of vmem.*update/) });
  });
});

describe('exportMemory / importMemory', () => {
  it('round-trips manifest, rounds, vectors and images into a new memory', async () => {
    const source = await fresh('source');
    await source.writeManifest(manifest);
    await source.putRounds([record(1, { withImage: true }), record(2)]);
    const blob = await exportMemory(source);
    names.push('copy');
    await importMemory('copy', blob);
    const copy = await createIdbStorage('copy');
    expect(await copy.readManifest()).toEqual(manifest);
    expect(await copy.loadAll()).toEqual(await source.loadAll());
    expect(await copy.getImage('r1-img')).toEqual(await source.getImage('r1-img'));
    await source.close();
    await copy.close();
  });

  it('refuses a file that is not a memory export and an existing name', async () => {
    expect(() => decodeMemoryFile(new TextEncoder().encode('{"rounds": []}'))).toThrow(/not a vmem memory export/);
    const existing = await fresh('taken');
    await existing.writeManifest(manifest);
    const blob = await exportMemory(existing);
    await expect(importMemory('taken', blob)).rejects.toMatchObject({ code: 'MEMORY_EXISTS' });
    await existing.close();
  });
});

describe('toStorageError', () => {
  it('turns a quota failure into QUOTA_EXCEEDED with advice', () => {
    const error = toStorageError(new DOMException('full', 'QuotaExceededError'), 'saving round r9');
    expect(error.code).toBe('QUOTA_EXCEEDED');
    expect(error.message).toMatch(/saving round r9.*rolled back.*export/s);
  });
});
