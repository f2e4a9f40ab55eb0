/** Encrypted IndexedDB memories through `vmem/browser`, over fake-indexeddb (e2e/encryption.spec.ts runs the same scan in Chromium). */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { VmemProgress } from 'vmem';
import { deleteMemory, encryptMemory, importMemory, openMemory, type BrowserMemory } from 'vmem/browser';
import { createHashTextEncoder } from '../testing/hash-encoder.js';

const names = new Set<string>();
const opened: BrowserMemory[] = [];
afterEach(async () => {
  for (const memory of opened.splice(0)) await memory.close();
  for (const name of names) await deleteMemory(name);
  names.clear();
});

async function open(name: string, passphrase?: string) {
  names.add(name);
  const memory = await openMemory(name, { encoders: { textEncoder: createHashTextEncoder() }, ...(passphrase ? { encryption: { passphrase } } : {}) });
  opened.push(memory);
  return memory;
}

async function closeAll() {
  for (const memory of opened.splice(0)) await memory.close();
}

const ROUNDS = [
  { id: 'zqidmarker1', sessionId: 'zqsessionmarker', user: { text: 'My cat zqcatmarker sleeps on the radiator' }, assistant: { text: 'Cosy zqreplymarker!' } },
  { id: 'zqidmarker2', user: { text: 'The car is parked in the garage on level two' } },
];
const MARKERS = ['zqidmarker1', 'zqsessionmarker', 'zqcatmarker', 'zqreplymarker', 'radiator', 'garage'];

/** Every value of every store of the memory's database, read with the raw IndexedDB API, as bytes. */
async function rawRecords(name: string): Promise<Uint8Array[]> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(`vmem:${name}`);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const out: Uint8Array[] = [];
  const flatten = async (value: unknown): Promise<void> => {
    if (value instanceof Blob) out.push(new Uint8Array(await value.arrayBuffer()));
    else if (ArrayBuffer.isView(value)) out.push(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    else if (typeof value === 'string') out.push(new TextEncoder().encode(value));
    else if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) (await flatten(key), await flatten(inner));
  };
  for (const store of [...db.objectStoreNames]) {
    const values = await new Promise<unknown[]>((resolve, reject) => {
      const request = db.transaction(store).objectStore(store).getAll();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const keys = await new Promise<IDBValidKey[]>((resolve, reject) => {
      const request = db.transaction(store).objectStore(store).getAllKeys();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    for (const value of [...values, ...keys]) await flatten(value);
  }
  db.close();
  return out;
}

const holds = (records: Uint8Array[], text: string) => records.some((bytes) => Buffer.from(bytes).includes(text));

describe('an encrypted IndexedDB memory', () => {
  it('holds no readable text in any record, and none when read back without the passphrase; plain, every marker shows', async () => {
    const sealed = await open('sealed-a', 'pw one');
    await sealed.add(ROUNDS);
    const plain = await open('plain-a');
    await plain.add(ROUNDS);
    await closeAll();
    const sealedRecords = await rawRecords('sealed-a');
    const plainRecords = await rawRecords('plain-a');
    for (const text of MARKERS) {
      expect(holds(sealedRecords, text), text).toBe(false);
      expect(holds(plainRecords, text), text).toBe(true);
    }
    await expect(open('sealed-a')).rejects.toMatchObject({ code: 'PASSPHRASE_REQUIRED' });
    await expect(open('sealed-a', 'pw two')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    const reopened = await open('sealed-a', 'pw one');
    expect((await reopened.retrieve('where does the cat sleep?')).blocks[0]?.rounds.map((round) => round.id)).toContain('zqidmarker1');
  });

  it('changePassphrase: the old one fails, the new one opens', async () => {
    const memory = await open('sealed-b', 'first');
    await memory.add(ROUNDS);
    await expect(memory.changePassphrase('nope', 'second')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    await memory.changePassphrase('first', 'second');
    await closeAll();
    await expect(open('sealed-b', 'first')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    expect((await open('sealed-b', 'second')).size).toBe(2);
  });

  it('exports encrypted, and imports with the passphrase only', async () => {
    const memory = await open('sealed-c', 'export pw');
    await memory.add(ROUNDS);
    const file = await memory.export();
    const bytes = Buffer.from(await file.arrayBuffer());
    for (const text of MARKERS) expect(bytes.includes(text), text).toBe(false);
    names.add('copy-c');
    await expect(importMemory('copy-c', file)).rejects.toMatchObject({ code: 'PASSPHRASE_REQUIRED' });
    await expect(importMemory('copy-c', file, { encryption: { passphrase: 'wrong' } })).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    await importMemory('copy-c', file, { encryption: { passphrase: 'export pw' } });
    for (const text of MARKERS) expect(holds(await rawRecords('copy-c'), text), text).toBe(false);
    const copy = await open('copy-c', 'export pw');
    expect((await copy.get('zqidmarker1'))?.user.text).toContain('zqcatmarker');
  });

  it('encryptMemory encrypts a stored memory in place: no readable record after, the passphrase opens it whole', async () => {
    const memory = await open('plain-d');
    await memory.add(ROUNDS);
    await closeAll();
    expect(holds(await rawRecords('plain-d'), 'zqcatmarker')).toBe(true);
    const seen: string[] = [];
    await encryptMemory('plain-d', { passphrase: 'later' }, { onProgress: (event) => seen.push(event.status) });
    expect(seen).toEqual(['initiate', 'progress', 'done']);
    for (const text of MARKERS) expect(holds(await rawRecords('plain-d'), text), text).toBe(false);
    await expect(open('plain-d')).rejects.toMatchObject({ code: 'PASSPHRASE_REQUIRED' });
    const reopened = await open('plain-d', 'later');
    expect((await reopened.rounds()).map((round) => round.user.text)).toEqual(ROUNDS.map((round) => round.user.text));
    expect((await reopened.retrieve('where does the cat sleep?')).blocks[0]?.rounds.map((round) => round.id)).toContain('zqidmarker1');
    await expect(encryptMemory('nothing-here', { passphrase: 'x' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('an export of a plain memory may get its own passphrase', async () => {
    const memory = await open('plain-e');
    await memory.add(ROUNDS);
    const file = await memory.export({ encryption: { passphrase: 'own' } });
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.subarray(0, 8).toString()).toBe('VMEMSEAL');
    for (const text of MARKERS) expect(bytes.includes(text), text).toBe(false);
    expect(Buffer.from(await (await memory.export()).arrayBuffer()).includes('zqcatmarker')).toBe(true);
    names.add('copy-e');
    await importMemory('copy-e', file, { encryption: { passphrase: 'own' } });
    expect((await (await open('copy-e', 'own')).get('zqidmarker1'))?.assistant.text).toBe('Cosy zqreplymarker!');
  });

  it('writes the sealed facts cache with an add, so a page that never closes the memory still opens it from the cache', async () => {
    const writer = await open('cache-no-close', 'cached');
    await writer.add(Array.from({ length: 300 }, (_, at) => ({ id: `r${at}`, user: { text: `Round ${at} about the garden` } })));
    // Another tab opens it while the first never closed: every round's facts come from the cache, not one decryption each.
    const decrypt = vi.spyOn(crypto.subtle, 'decrypt');
    try {
      const reader = await open('cache-no-close', 'cached');
      expect(reader.size).toBe(300);
      expect(decrypt).toHaveBeenCalled();
      expect(decrypt.mock.calls.length).toBeLessThan(20);
    } finally {
      decrypt.mockRestore();
    }
  });

  it('reports the unlock as a task: initiate, then done; or failed with WRONG_PASSPHRASE', async () => {
    await (await open('unlock-progress', 'right')).add(ROUNDS);
    await closeAll();
    const seen = async (passphrase: string) => {
      const events: VmemProgress[] = [];
      names.add('unlock-progress');
      const memory = await openMemory('unlock-progress', { encoders: { textEncoder: createHashTextEncoder() }, encryption: { passphrase }, onProgress: (event) => events.push(event) }).catch(() => undefined);
      if (memory) opened.push(memory);
      return events.filter((event) => event.task === 'unlock').map((event) => (event.status === 'failed' ? `failed ${event.code}` : event.status));
    };
    expect(await seen('right')).toEqual(['initiate', 'done']);
    await closeAll();
    expect(await seen('wrong')).toEqual(['initiate', 'failed WRONG_PASSPHRASE']);
  });

  it('opens rounds written after the facts cache from their own records, and from the cache alone once a close wrote it again', async () => {
    const writer = await open('cache-behind', 'behind');
    await writer.add(Array.from({ length: 300 }, (_, at) => ({ id: `r${at}`, sessionId: `s${at % 3}`, user: { text: `Round ${at} about the garden` } })));
    // Too few changes for the add to write the cache again: another tab finds these outside it.
    await writer.add({ id: 'late', sessionId: 'later', timestamp: Date.UTC(2026, 1, 2), meta: { mood: 'zqlatemood' }, user: { text: 'A late round about the orchard' } });
    await writer.update('r5', { sessionId: 'moved' });
    await writer.forget('r6');
    const reader = await open('cache-behind', 'behind');
    expect(reader.size).toBe(300);
    expect(reader.has('r6')).toBe(false);
    const only = async (sessionId: string) => (await reader.retrieve('garden orchard', { k: 5, filter: { sessionIds: [sessionId] } })).blocks.flatMap((block) => block.rounds.map((round) => round.id));
    expect(await only('later')).toEqual(['late']);
    expect(await only('moved')).toEqual(['r5']);
    expect((await reader.get('late'))?.meta).toEqual({ mood: 'zqlatemood' });
    await closeAll();
    // The close wrote every round's facts into a fresh cache: the next open decrypts it and the segments only.
    const decrypt = vi.spyOn(crypto.subtle, 'decrypt');
    try {
      const again = await open('cache-behind', 'behind');
      expect(again.size).toBe(300);
      expect(decrypt.mock.calls.length).toBeLessThan(20);
      expect((await again.get('r5'))?.sessionId).toBe('moved');
    } finally {
      decrypt.mockRestore();
    }
  });

  it('a round outside the facts cache whose sealed facts fail to authenticate fails the open with INTEGRITY_ERROR naming its position; a damaged body fails only reading it', async () => {
    const writer = await open('damaged-late', 'late');
    await writer.add(Array.from({ length: 300 }, (_, at) => ({ id: `r${at}`, user: { text: `Round ${at} about the garden` } })));
    await writer.add([{ id: 'late-a', user: { text: 'A late round' } }, { id: 'late-b', user: { text: 'Another late round' } }]);
    // The writer stays open (it would write the cache again on close): the late rounds are outside it.
    const flip = async (position: number, field: 'facts' | 'body') =>
      rawUpdate('damaged-late', 'bodies', (value) => {
        const record = value as { round: { seq: number; user: { typed: string }; assistant: { text: string } } };
        if (record.round.seq !== position) return undefined;
        const turn = field === 'facts' ? record.round.user : record.round.assistant;
        const text = field === 'facts' ? record.round.user.typed : record.round.assistant.text;
        const flipped = `${text.slice(0, 20)}${text[20] === 'A' ? 'B' : 'A'}${text.slice(21)}`;
        return { ...record, round: { ...record.round, [field === 'facts' ? 'user' : 'assistant']: { ...turn, [field === 'facts' ? 'typed' : 'text']: flipped } } };
      });
    await flip(301, 'body');
    const reader = await open('damaged-late', 'late');
    expect(reader.size).toBe(302);
    await expect(reader.get('late-b')).rejects.toMatchObject({ code: 'INTEGRITY_ERROR' });
    expect((await reader.get('late-a'))?.user.text).toBe('A late round');
    await flip(300, 'facts');
    const failed = await open('damaged-late', 'late').catch((error: unknown) => error as Error);
    expect(failed).toMatchObject({ code: 'INTEGRITY_ERROR' });
    expect((failed as Error).message).toContain('(position 300)');
  });
});

/** Rewrites each value of one store of the memory's database for which `change` gives a new one, with the raw IndexedDB API. */
async function rawUpdate(name: string, store: string, change: (value: unknown) => unknown): Promise<void> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(`vmem:${name}`);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const tx = db.transaction(store, 'readwrite');
  const cursor = tx.objectStore(store).openCursor();
  await new Promise<void>((resolve, reject) => {
    cursor.onsuccess = () => {
      const at = cursor.result;
      if (!at) return resolve();
      const next = change(at.value);
      if (next !== undefined) at.update(next);
      at.continue();
    };
    cursor.onerror = () => reject(cursor.error);
  });
  db.close();
}
