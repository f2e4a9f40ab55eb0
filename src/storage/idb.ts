/**
 * IndexedDB storage for browsers: one database per named memory, holding the manifest, rounds,
 * units (vectors as Float32Array) and image bytes. Opening a memory reads stored vectors back, so
 * indexes are rebuilt without re-encoding anything.
 */
import { deleteDB, openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { VmemError, isVmemError } from '../errors.js';
import type { StoredRound, StoredUnit } from '../types.js';
import { announceChange, listenForChanges, withWriteLock, type MemoryChange } from './idb-sync.js';
import type { Manifest, MemoryStorage, RoundRecord, StoredImage } from './types.js';

/** Prefix of every vmem database name, so `listMemories` can tell them from other databases. */
export const DATABASE_PREFIX = 'vmem:';
const DATABASE_VERSION = 1;

/** An image as stored: the bytes plus the round it belongs to, so forgetting a round finds them. */
interface ImageRecord extends StoredImage {
  readonly roundId: string;
}

/** Manifest and write counter live in one small key/value store. */
type MetaRecord =
  | { readonly key: 'manifest'; readonly manifest: Manifest }
  | { readonly key: 'revision'; readonly revision: number };

/** The typed schema: store and index names are checked at compile time. */
interface VmemDbSchema extends DBSchema {
  meta: { key: MetaRecord['key']; value: MetaRecord };
  rounds: { key: string; value: StoredRound; indexes: { seq: number } };
  units: { key: string; value: StoredUnit; indexes: { roundId: string } };
  images: { key: string; value: ImageRecord; indexes: { roundId: string } };
}

type VmemDb = IDBPDatabase<VmemDbSchema>;
type WriteTx = IDBPTransaction<VmemDbSchema, StoreNames<VmemDbSchema>[], 'readwrite'>;

/** `MemoryStorage` over IndexedDB, plus what the app needs to follow changes made by other tabs. */
export interface IdbMemoryStorage extends MemoryStorage {
  /** The memory's name (the database is `vmem:<name>`). */
  readonly name: string;
  /** Counts committed writes; another tab's write makes this tab's copy stale. */
  readonly revision: number;
  /**
   * Calls `listener` when another tab wrote to or deleted this memory. The in-page indexes are
   * then stale: reopen the memory (which rebuilds from stored vectors, no re-encoding).
   * @returns the unsubscribe function
   */
  onRemoteChange(listener: (change: MemoryChange) => void): () => void;
}

/**
 * Opens (creating if needed) the memory `name` in IndexedDB.
 *
 * Two tabs: every write holds the Web Lock `vmem:<name>` and checks that no other tab wrote since
 * this one loaded; if one did, the write is refused with `MEMORY_LOCKED` (nothing written) and
 * the caller reopens the memory. After each write a BroadcastChannel message tells other tabs.
 * @example
 * const storage = await createIdbStorage('alice');
 * const memory = await createMemory({ textEncoder, imageEncoder, storage });
 */
export async function createIdbStorage(name: string): Promise<IdbMemoryStorage> {
  assertMemoryName(name);
  let closedReason: string | undefined;
  const db = await guard(`opening memory "${name}"`, () =>
    openDB<VmemDbSchema>(DATABASE_PREFIX + name, DATABASE_VERSION, {
      upgrade: createStores,
      // Another tab wants to delete or upgrade this database: step aside instead of blocking it.
      blocking: () => {
        closedReason = `memory "${name}" was deleted or upgraded in another tab; open it again`;
        db.close();
      },
      terminated: () => {
        closedReason = `the browser closed the database of memory "${name}"; open it again`;
      },
    }),
  );
  let knownRevision = await readRevision(db);

  const ensureOpen = (): VmemDb => {
    if (closedReason !== undefined) throw new VmemError('CLOSED', `Storage is closed: ${closedReason}.`);
    return db;
  };

  /** Runs one write transaction under the tab lock, refusing it if another tab wrote first. */
  const write = async (doing: string, body: (tx: WriteTx) => void | Promise<void>): Promise<void> => {
    ensureOpen();
    await withWriteLock(name, async () => {
      const tx = ensureOpen().transaction(['meta', 'rounds', 'units', 'images'], 'readwrite');
      await runTransaction(tx, doing, async () => {
        const stored = await tx.objectStore('meta').get('revision');
        const current = stored?.key === 'revision' ? stored.revision : 0;
        if (current !== knownRevision) {
          tx.abort();
          throw new VmemError(
            'MEMORY_LOCKED',
            `Memory "${name}" was changed in another tab while ${doing}; nothing was written. Reopen the memory and try again.`,
          );
        }
        await body(tx);
        queued(tx.objectStore('meta').put({ key: 'revision', revision: current + 1 }));
      });
      knownRevision += 1;
    });
    announceChange({ type: 'written', name, revision: knownRevision });
  };

  return {
    name,
    get revision() {
      return knownRevision;
    },
    async readManifest() {
      const record = await guard('reading the manifest', () => ensureOpen().get('meta', 'manifest'));
      return record?.key === 'manifest' ? record.manifest : undefined;
    },
    async writeManifest(manifest) {
      await write('saving the manifest', (tx) => queued(tx.objectStore('meta').put({ key: 'manifest', manifest })));
    },
    async loadAll() {
      const handle = ensureOpen();
      return guard('loading the memory', async () => {
        const tx = handle.transaction(['meta', 'rounds', 'units'], 'readonly');
        const [rounds, units, revision] = await Promise.all([
          tx.objectStore('rounds').index('seq').getAll(),
          tx.objectStore('units').getAll(),
          tx.objectStore('meta').get('revision'),
          tx.done,
        ]);
        knownRevision = revision?.key === 'revision' ? revision.revision : 0;
        return { rounds, units };
      });
    },
    async putRounds(records) {
      if (records.length === 0) return;
      const first = records[0]!.round.id;
      const doing = records.length === 1 ? `saving round ${first}` : `saving ${records.length} rounds (from ${first})`;
      // One transaction for the whole batch: a crash or a full disk leaves all of it or none of it.
      await write(doing, (tx) => {
        for (const record of records) putRecord(tx, record);
      });
    },
    async deleteRound(roundId) {
      await write(`forgetting round ${roundId}`, async (tx) => {
        const [unitKeys, imageKeys] = await Promise.all([
          tx.objectStore('units').index('roundId').getAllKeys(roundId),
          tx.objectStore('images').index('roundId').getAllKeys(roundId),
        ]);
        queued(tx.objectStore('rounds').delete(roundId));
        for (const key of unitKeys) queued(tx.objectStore('units').delete(key));
        for (const key of imageKeys) queued(tx.objectStore('images').delete(key));
      });
    },
    async getImage(imageId) {
      const record = await guard(`reading image ${imageId}`, () => ensureOpen().get('images', imageId));
      return record ? { id: record.id, bytes: record.bytes, mimeType: record.mimeType } : undefined;
    },
    async clear() {
      await write(`clearing memory "${name}"`, (tx) => {
        queued(tx.objectStore('rounds').clear());
        queued(tx.objectStore('units').clear());
        queued(tx.objectStore('images').clear());
        queued(tx.objectStore('meta').delete('manifest'));
      });
    },
    async close() {
      if (closedReason === undefined) {
        closedReason = `memory "${name}" was closed`;
        db.close();
      }
    },
    onRemoteChange(listener) {
      return listenForChanges(name, (change) => {
        if (change.type === 'deleted' || change.revision !== knownRevision) listener(change);
      });
    },
  };
}

/** Names of the memories stored in this origin, sorted. */
export async function listMemories(): Promise<string[]> {
  const databases = await guard('listing memories', () => indexedDB.databases());
  return databases
    .map((db) => db.name ?? '')
    .filter((dbName) => dbName.startsWith(DATABASE_PREFIX))
    .map((dbName) => dbName.slice(DATABASE_PREFIX.length))
    .sort();
}

/**
 * Deletes the memory `name` with everything in it. Other tabs holding it open are told to close
 * it first; if one does not within 5 s, rejects with `MEMORY_LOCKED`.
 */
export async function deleteMemory(name: string): Promise<void> {
  assertMemoryName(name);
  announceChange({ type: 'deleted', name });
  await withWriteLock(name, () =>
    guard(`deleting memory "${name}"`, () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const blocked = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new VmemError('MEMORY_LOCKED', `Memory "${name}" is still open in another tab; close that tab, then delete it again.`),
            ),
          5_000,
        );
      });
      const deleted = deleteDB(DATABASE_PREFIX + name);
      return Promise.race([deleted, blocked]).finally(() => clearTimeout(timer));
    }),
  );
}

function createStores(db: VmemDb, oldVersion: number): void {
  if (oldVersion < 1) {
    db.createObjectStore('meta', { keyPath: 'key' });
    db.createObjectStore('rounds', { keyPath: 'id' }).createIndex('seq', 'seq');
    db.createObjectStore('units', { keyPath: 'id' }).createIndex('roundId', 'roundId');
    db.createObjectStore('images', { keyPath: 'id' }).createIndex('roundId', 'roundId');
  }
}

async function readRevision(db: VmemDb): Promise<number> {
  const record = await guard('reading the memory revision', () => db.get('meta', 'revision'));
  return record?.key === 'revision' ? record.revision : 0;
}

function putRecord(tx: WriteTx, record: RoundRecord): void {
  queued(tx.objectStore('rounds').put(record.round));
  for (const unit of record.units) queued(tx.objectStore('units').put({ ...unit, vector: compactFloats(unit.vector) }));
  for (const image of record.images) {
    queued(tx.objectStore('images').put({ id: image.id, roundId: record.round.id, mimeType: image.mimeType, bytes: compactBytes(image.bytes) }));
  }
}

/**
 * Runs `body` inside `tx` and waits for the commit. Requests are fired without awaiting each
 * (a failing one aborts the transaction), so the outcome is decided by `tx.done`. A synchronous
 * throw mid-body (e.g. DataCloneError) aborts explicitly, so no half-written round can commit.
 */
async function runTransaction(tx: WriteTx, doing: string, body: () => Promise<void>): Promise<void> {
  // Observe `done` right away so an abort never surfaces as an unhandled rejection.
  const done = tx.done.then(
    () => undefined,
    (error: unknown) => error,
  );
  try {
    await body();
  } catch (error) {
    abortQuietly(tx);
    await done;
    throw toStorageError(error, doing);
  }
  const failure = await done;
  if (failure !== undefined) throw toStorageError(failure, doing);
}

function abortQuietly(tx: WriteTx): void {
  // abort() throws InvalidStateError once the transaction has finished or already aborted: in both
  // cases nothing more can be written, which is the state we want.
  try {
    tx.abort();
  } catch (error) {
    if (!(error instanceof DOMException && error.name === 'InvalidStateError')) throw error;
  }
}

/**
 * Fires a request without awaiting it. Its failure aborts the transaction, and that abort is what
 * `runTransaction` reports through `tx.done`; the per-request rejection is therefore only observed.
 */
function queued(request: Promise<unknown>): void {
  request.catch(() => undefined);
}

/** Runs an IndexedDB call and turns its failure into a `VmemError`. */
async function guard<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toStorageError(error, doing);
  }
}

/** Maps a DOMException from IndexedDB to a typed error with advice; vmem errors pass through. */
export function toStorageError(error: unknown, doing: string): VmemError {
  if (isVmemError(error)) return error;
  const errorName = error instanceof Error || error instanceof DOMException ? error.name : '';
  if (errorName === 'QuotaExceededError') {
    return new VmemError(
      'QUOTA_EXCEEDED',
      `Browser storage is full while ${doing}; that write was rolled back and everything stored before it is intact. ` +
        'Free space (delete an old memory, or clear other site data), or export this memory to a file and forget old rounds, then try again.',
      { cause: error },
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new VmemError(
    'STORAGE_FAILED',
    `IndexedDB failed while ${doing}: ${detail}. Check that the site may store data (not a private window with storage blocked) and reload.`,
    { cause: error },
  );
}

function assertMemoryName(name: string): void {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) {
    throw new VmemError('INVALID_INPUT', `Memory name must be a non-empty string of at most 200 characters; got ${JSON.stringify(name)}.`);
  }
}

/** Structured clone copies a view's whole buffer; store exactly the vector's bytes. */
function compactFloats(vector: Float32Array): Float32Array {
  return vector.byteOffset === 0 && vector.byteLength === vector.buffer.byteLength ? vector : vector.slice();
}

function compactBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}
