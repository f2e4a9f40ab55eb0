import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { VmemError } from '../errors.js';
import type { StoredRound, StoredUnit } from '../types.js';
import { decodeMemoryFile, encodeMemoryFile, importMemory } from './idb-file.js';
import { DATABASE_PREFIX, DATABASE_VERSION, createIdbStorage, deleteMemory, listMemories, toStorageError } from './idb.js';
import { SCHEMA_VERSION, type IndexChange, type Manifest, type RoundRecord } from './types.js';

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
    { id: `${id}#user`, roundId: id, lane: 'text', kind: 'text', role: 'user', text: round.user.text, vector: new Float32Array([seq, 0.5, -1]) },
  ];
  if (options.withImage) units.push({ id: `${imageId}#image`, roundId: id, lane: 'image', kind: 'image', role: 'user', imageId, vector: new Float32Array([0.6, 0.8]) });
  return { round, units, images: options.withImage ? [{ id: imageId, bytes: new Uint8Array([0xff, 0xd8, 0xff, seq]), mimeType: 'image/jpeg' }] : [] };
}

/** A record as the memory writes it with an index change: no units (their vectors are in segments). */
const indexed = (seq: number, options: { withImage?: boolean } = {}): RoundRecord => ({ ...record(seq, options), units: [] });

/** An index change adding one segment (any bytes: storage keeps segments as opaque blobs). */
function change(segments: { id: string; rounds: number; dead?: number[] }[], add: string[] = []): IndexChange {
  return {
    add: add.map((id) => ({ id, bytes: new TextEncoder().encode(`segment ${id}`) })),
    commit: { segments: segments.map((segment) => ({ id: segment.id, rounds: segment.rounds, dead: segment.dead ?? [] })) },
  };
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
  it('keeps round facts, round bodies, images, segments and the commit across a reopen, in seq order', async () => {
    const storage = await fresh('reopen');
    await storage.writeManifest(manifest);
    await storage.putRounds([indexed(2, { withImage: true }), indexed(1)], change([{ id: 'a', rounds: 2 }], ['a']));
    await storage.close();

    const reopened = await createIdbStorage('reopen');
    expect(await reopened.readManifest()).toEqual(manifest);
    const state = await reopened.open();
    expect(state.rounds.map((r) => r.id)).toEqual(['r1', 'r2']);
    expect(state.rounds[1]).toEqual({ id: 'r2', seq: 2, sessionId: 'default', timestamp: 1_700_000_000_002, images: [{ id: 'r2-img', hasBytes: true }] });
    expect(state.index).toEqual({ segments: [{ id: 'a', rounds: 2, dead: [] }] });
    expect(state.unindexed).toEqual([]);
    expect(await reopened.getRounds(['r2', 'nope', 'r1'])).toEqual([record(2, { withImage: true }).round, undefined, record(1).round]);
    const [bytes, missing] = await reopened.readSegments(['a', 'b']);
    expect(new TextDecoder().decode(bytes)).toBe('segment a');
    expect(missing).toBeUndefined();
    expect(Array.from((await reopened.getImage('r2-img'))!.bytes)).toEqual([0xff, 0xd8, 0xff, 2]);
    await reopened.close();
  });

  it('stores a round written again in place of the old one, whether or not this storage has read the rounds yet', async () => {
    const edited = (seq: number, text: string): RoundRecord => ({ ...indexed(seq), round: { ...record(seq).round, user: { text, images: [] } } });
    const first = await fresh('rewrite');
    await first.putRounds([indexed(1), indexed(2)], change([{ id: 'a', rounds: 2 }], ['a']));
    await first.close();
    // Not opened: it cannot know which rounds are stored, so it looks r1 up.
    const storage = await createIdbStorage('rewrite');
    await storage.putRounds([edited(1, 'edited before open')], change([{ id: 'a', rounds: 2, dead: [0] }, { id: 'b', rounds: 1 }], ['b']));
    expect((await storage.open()).rounds.map((r) => r.id)).toEqual(['r1', 'r2']);
    // Opened: a new round needs no look-up, a stored one still leaves its old record.
    await storage.putRounds([indexed(3), edited(2, 'edited after open')], change([{ id: 'c', rounds: 2 }], ['c']));
    const state = await storage.open();
    expect(state.rounds.map((r) => r.id)).toEqual(['r1', 'r2', 'r3']);
    expect((await storage.getRounds(['r1', 'r2', 'r3'])).map((round) => round?.user.text)).toEqual(['edited before open', 'edited after open', 'user text 3']);
    await storage.close();
  });

  it('writes a batch and its index change all or nothing: an unstorable value leaves nothing behind', async () => {
    const storage = await fresh('atomic');
    await storage.putRounds([indexed(1)], change([{ id: 'a', rounds: 1 }], ['a']));
    const bad = indexed(3);
    // A function cannot be cloned into IndexedDB: the second record fails mid-batch.
    const poisoned = { ...bad, round: { ...bad.round, meta: { bad: (() => 1) as unknown as string } } };
    await expect(storage.putRounds([indexed(2), poisoned], change([{ id: 'a', rounds: 1 }, { id: 'b', rounds: 2 }], ['b']))).rejects.toThrow(VmemError);
    const state = await storage.open();
    expect(state.rounds.map((r) => r.id)).toEqual(['r1']);
    expect(state.index?.segments.map((segment) => segment.id)).toEqual(['a']);
    expect((await storage.readSegments(['b']))[0]).toBeUndefined();
    await storage.close();
  });

  it('forgets a round with its body and image bytes, stores the dead mark, and drops segments the commit no longer names', async () => {
    const storage = await fresh('forget');
    await storage.putRounds([indexed(1, { withImage: true }), indexed(2)], change([{ id: 'a', rounds: 2 }], ['a']));
    await storage.deleteRounds(['r1'], change([{ id: 'a', rounds: 2, dead: [0] }]));
    let state = await storage.open();
    expect(state.rounds.map((r) => r.id)).toEqual(['r2']);
    expect(state.index).toEqual({ segments: [{ id: 'a', rounds: 2, dead: [0] }] });
    expect(await storage.getRounds(['r1'])).toEqual([undefined]);
    expect(await storage.getImage('r1-img')).toBeUndefined();
    // A merge: segment a (with its dead round) becomes c.
    await storage.writeIndex(change([{ id: 'c', rounds: 1 }], ['c']));
    state = await storage.open();
    expect(state.index).toEqual({ segments: [{ id: 'c', rounds: 1, dead: [] }] });
    expect((await storage.readSegments(['a', 'c'])).map((bytes) => bytes !== undefined)).toEqual([false, true]);
    await storage.close();
  });

  it('refuses an edit, a deletion or an index write from a tab whose copy is stale, writing nothing; with concurrentAdds "refuse", new rounds too', async () => {
    const tabA = await fresh('two-tabs');
    await tabA.putRounds([indexed(1)], change([{ id: 'a', rounds: 1 }], ['a']));
    const tabB = await createIdbStorage('two-tabs');
    const strictB = await createIdbStorage('two-tabs', { concurrentAdds: 'refuse' });
    await tabB.open();
    await strictB.open();
    await tabA.putRounds([indexed(2)], change([{ id: 'a', rounds: 1 }, { id: 'b', rounds: 1 }], ['b']));
    await expect(tabB.deleteRounds(['r1'], change([{ id: 'a', rounds: 1, dead: [0] }]))).rejects.toMatchObject({ code: 'MEMORY_LOCKED' });
    await expect(tabB.putRounds([{ ...indexed(1), round: { ...record(1).round, sessionId: 'edited' } }], change([]))).rejects.toMatchObject({ code: 'MEMORY_LOCKED' });
    await expect(tabB.writeIndex(change([{ id: 'm', rounds: 1 }], ['m']))).rejects.toMatchObject({ code: 'MEMORY_LOCKED' });
    await expect(strictB.putRounds([indexed(3)], change([{ id: 'c', rounds: 1 }], ['c']))).rejects.toMatchObject({ code: 'MEMORY_LOCKED' });
    const state = await tabA.open();
    expect(state.rounds.map((r) => [r.id, r.sessionId])).toEqual([
      ['r1', 'default'],
      ['r2', 'default'],
    ]);
    expect(state.index?.segments.map((segment) => segment.id)).toEqual(['a', 'b']);
    // After reloading, tab B is current again and may write.
    await tabB.open();
    await tabB.deleteRounds(['r1'], change([{ id: 'a', rounds: 1, dead: [0] }, { id: 'b', rounds: 1 }]));
    expect((await tabA.open()).rounds.map((r) => r.id)).toEqual(['r2']);
    for (const tab of [tabA, tabB, strictB]) await tab.close();
  });

  it('stores new rounds from a stale tab after the rounds stored meanwhile, adds its segment to that commit, and refuses an id stored meanwhile', async () => {
    const tabA = await fresh('merge-tabs');
    const tabB = await createIdbStorage('merge-tabs');
    await tabB.open();
    await tabA.putRounds([indexed(1), indexed(2)], change([{ id: 'a', rounds: 2 }], ['a']));
    // Tab B numbered its round from its own (empty) copy: seq 0, before what tab A stored meanwhile.
    await tabB.putRounds([{ ...indexed(7), round: { ...record(7).round, seq: 0 } }], change([{ id: 'b', rounds: 1 }], ['b']));
    await expect(tabB.putRounds([indexed(2)], change([{ id: 'b', rounds: 1 }, { id: 'c', rounds: 1 }], ['c']))).rejects.toMatchObject({ code: 'DUPLICATE_ROUND' });
    const state = await tabA.open();
    expect(state.rounds.map((r) => [r.id, r.seq])).toEqual([
      ['r1', 1],
      ['r2', 2],
      ['r7', 3],
    ]);
    expect(state.index?.segments.map((segment) => segment.id)).toEqual(['a', 'b']);
    await tabA.close();
    await tabB.close();
  });

  it('compacts the facts of rounds written one by one without changing what is stored', async () => {
    const storage = await fresh('facts');
    const segments: { id: string; rounds: number }[] = [];
    for (let seq = 1; seq <= 40; seq++) {
      segments.push({ id: `s${seq}`, rounds: 1 });
      await storage.putRounds([indexed(seq)], change(segments, [`s${seq}`]));
    }
    const before = await storage.open();
    await storage.compact();
    const raw = await openDB(DATABASE_PREFIX + 'facts');
    const records = await raw.count('facts');
    raw.close();
    expect(records).toBe(1);
    expect(await storage.open()).toEqual(before);
    // Rewriting and forgetting rounds that now share a record touches only those rounds.
    await storage.putRounds([{ ...indexed(5), round: { ...record(5).round, user: { text: 'edited', images: [] } } }], change(segments));
    await storage.deleteRounds(['r10'], change(segments));
    const after = await storage.open();
    expect(after.rounds.map((r) => r.seq)).toEqual([...Array(40).keys()].map((i) => i + 1).filter((seq) => seq !== 10));
    expect((await storage.getRounds(['r5']))[0]?.user.text).toBe('edited');
    await storage.close();
  });

  it('lists and deletes named memories; a closed storage says so', async () => {
    const alice = await fresh('alice');
    const bob = await fresh('bob');
    await bob.close();
    expect(await listMemories()).toEqual(expect.arrayContaining(['alice', 'bob']));
    await deleteMemory('bob');
    expect(await listMemories()).not.toContain('bob');
    await alice.close();
    await expect(alice.open()).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('rejects an empty memory name', async () => {
    await expect(createIdbStorage('  ')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('rounds stored without the index (layouts 1 to 3, imports)', () => {
  const plain = (list: readonly StoredUnit[]) => list.map((u) => ({ ...u, vector: Array.from(u.vector) })).sort((a, b) => a.id.localeCompare(b.id));

  it('migrates a layout-1 memory (a record per unit) on open: its rounds await indexing, with their vectors and images', async () => {
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
    const state = await storage.open();
    expect(state.rounds.map((r) => r.id)).toEqual(['r1', 'r2']);
    expect(state.index).toBeUndefined();
    expect(state.unindexed).toEqual(['r1', 'r2']);
    expect(await storage.getRounds(['r1', 'r2'])).toEqual(records.map((r) => r.round));
    expect(plain(await storage.readUnits(['r1', 'r2']))).toEqual(plain(records.flatMap((r) => r.units)));
    expect(Array.from((await storage.getImage('r1-img'))!.bytes)).toEqual([0xff, 0xd8, 0xff, 1]);
    // Indexing them moves them out of their chunk: the vectors go, the rounds and images stay.
    await storage.writeIndex(change([{ id: 'a', rounds: 2 }], ['a']), ['r1', 'r2']);
    const after = await storage.open();
    expect(after.unindexed).toEqual([]);
    expect(after.rounds.map((r) => r.id)).toEqual(['r1', 'r2']);
    expect(await storage.getRounds(['r1', 'r2'])).toEqual(records.map((r) => r.round));
    expect(await storage.readUnits(['r1'])).toEqual([]);
    await storage.close();
    const raw = await openDB(DATABASE_PREFIX + 'legacy');
    expect(raw.version).toBe(DATABASE_VERSION);
    const stores = [...raw.objectStoreNames].sort();
    expect(await raw.count('chunks')).toBe(0);
    raw.close();
    expect(stores).toEqual(['bodies', 'chunks', 'facts', 'images', 'meta', 'segments']);
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
    expect((await storage.open()).unindexed).toEqual(['r1', 'r2', 'r3']);
    expect(plain(await storage.readUnits(['r1', 'r2', 'r3']))).toEqual(plain(all));
    await storage.deleteRounds(['r2']);
    expect(plain(await storage.readUnits(['r1', 'r2', 'r3']))).toEqual(plain(all.filter((u) => u.roundId !== 'r2')));
    await storage.close();
    const raw = await openDB(DATABASE_PREFIX + 'layout2');
    expect(raw.version).toBe(DATABASE_VERSION);
    expect((await raw.getAll('chunks')).every((chunk) => chunk.vectors instanceof Blob)).toBe(true);
    raw.close();
  });

  it('refuses a stored chunk whose vector bytes do not fit its units, as a storage error', async () => {
    const storage = await fresh('corrupt');
    await storage.putRounds([record(1)]);
    const raw = await openDB(DATABASE_PREFIX + 'corrupt');
    const [chunk] = await raw.getAll('chunks');
    await raw.put('chunks', { ...chunk!, vectors: new Blob([new Float32Array(2)]) });
    raw.close();
    await expect(storage.readUnits(['r1'])).rejects.toMatchObject({ code: 'STORAGE_FAILED', message: expect.stringMatching(/vectors/) });
    await storage.close();
  });

  it('refuses a memory saved by a newer vmem with advice, leaving it untouched', async () => {
    names.push('future');
    const future = await openDB(DATABASE_PREFIX + 'future', DATABASE_VERSION + 1, { upgrade: (db) => void db.createObjectStore('meta') });
    future.close();
    await expect(createIdbStorage('future')).rejects.toMatchObject({ code: 'STORAGE_FAILED', message: expect.stringMatching(/newer version of vmem.*update/) });
  });
});

describe('importMemory', () => {
  it('stores a file\'s rounds with their vectors, to be indexed when the memory opens', async () => {
    const records = [record(1, { withImage: true }), record(2)];
    const file = encodeMemoryFile({
      manifest,
      rounds: records.map((r) => r.round),
      units: records.flatMap((r) => r.units),
      images: records.flatMap((r) => r.images.map((image) => ({ ...image, roundId: r.round.id }))),
    });
    names.push('copy');
    await importMemory('copy', file);
    const copy = await createIdbStorage('copy');
    expect(await copy.readManifest()).toEqual(manifest);
    const state = await copy.open();
    expect(state.unindexed).toEqual(['r1', 'r2']);
    expect(await copy.getRounds(['r1', 'r2'])).toEqual(records.map((r) => r.round));
    expect((await copy.readUnits(['r1'])).map((unit) => Array.from(unit.vector))).toEqual(records[0]!.units.map((unit) => Array.from(unit.vector)));
    expect(Array.from((await copy.getImage('r1-img'))!.bytes)).toEqual([0xff, 0xd8, 0xff, 1]);
    await copy.close();
  });

  it('refuses a file that is not a memory export and an existing name', async () => {
    expect(() => decodeMemoryFile(new TextEncoder().encode('{"rounds": []}'))).toThrow(/not a vmem memory export/);
    const existing = await fresh('taken');
    await existing.writeManifest(manifest);
    const blob = encodeMemoryFile({ manifest, rounds: [], units: [], images: [] });
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
