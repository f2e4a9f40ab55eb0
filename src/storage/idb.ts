/**
 * IndexedDB storage for browsers: one database per named memory, holding the manifest, rounds in
 * chunk records (up to 256 rounds with their units and vectors packed in one Blob; see
 * round-chunk.ts) and image bytes. Opening a memory reads stored vectors back, so indexes are rebuilt without
 * re-encoding anything.
 */
import { deleteDB, openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { VmemError, isVmemError } from '../errors.js';
import { announceChange, listenForChanges, withWriteLock, type MemoryChange } from './idb-sync.js';
import { migrateStores } from './idb-migrate.js';
import { CHUNK_ROUNDS, mergeChunks, packChunk, slices, stageChunks, withoutRounds, type RoundChunk } from './round-chunk.js';
import type { Manifest, MemoryStorage, RoundRecord, StagedLoad, StoredImage } from './types.js';
import { assertStorablePictures } from './picture-check.js';

/** Prefix of every vmem database name, so `listMemories` can tell them from other databases. */
export const DATABASE_PREFIX = 'vmem:';
/**
 * The layout version of the database. 1: a record per round and per unit. 2: chunk records of up to
 * 256 rounds with their units and packed vectors (opening reads a few dozen records); version-1
 * databases are migrated on open, in the upgrade transaction, so a failed migration leaves them as
 * they were. 3: the chunks' vectors in a Blob instead of a Float32Array (read asynchronously, so
 * opening indexes texts while vector bytes arrive); migrated from 1 and 2 the same way.
 */
export const DATABASE_VERSION = 3;

/** An image as stored: the bytes plus the round it belongs to, so forgetting a round finds them. */
interface ImageRecord extends StoredImage {
  readonly roundId: string;
}

/** Manifest and write counter live in one small key/value store. */
type MetaRecord =
  | { readonly key: 'manifest'; readonly manifest: Manifest }
  | { readonly key: 'revision'; readonly revision: number };

/** The typed schema: store and index names are checked at compile time. */
export interface VmemDbSchema extends DBSchema {
  meta: { key: MetaRecord['key']; value: MetaRecord };
  chunks: { key: number; value: RoundChunk; indexes: { roundId: string } };
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
  /**
   * Merges small chunk records (single-round writes leave one each) into full ones, without changing
   * what is stored. Opening a memory starts it in the background when there are many.
   */
  compact(): Promise<void>;
  /** Rounds and unit facts first; vector bytes are read from Blobs meanwhile (see round-chunk.ts). */
  loadStaged(): Promise<StagedLoad>;
}

/** Options of `createIdbStorage`. */
export interface IdbStorageOptions {
  /**
   * Only create: reject with `MEMORY_EXISTS` when the memory is already there. The check and the
   * creation are one step, so two tabs creating the same name cannot both succeed.
   * @default false
   */
  readonly createNew?: boolean;
  /**
   * The browser closed the database under the memory: its site data was cleared (settings, DevTools,
   * a `Clear-Site-Data` header) or storage failed. Every later call rejects with `CLOSED`.
   * @default none
   */
  readonly onTerminated?: () => void;
  /**
   * What a write of rounds does when another tab wrote since this tab loaded (a long import with a
   * write in another tab meanwhile). `'merge'` stores rounds new to both tabs on top of the other
   * tab's write, numbered after every round stored now, so nothing already encoded is lost; a round
   * whose id the other tab stored meanwhile is refused with `DUPLICATE_ROUND`, and a round this tab
   * already had (an edit) with `MEMORY_LOCKED`, since it could undo the other tab's change.
   * `'refuse'` rejects every such write with `MEMORY_LOCKED`. Other writes are always refused.
   * @default 'merge'
   */
  readonly concurrentAdds?: 'merge' | 'refuse';
}

/** Small chunks (under an eighth full) tolerated before opening compacts them. */
const SMALL_CHUNKS_BEFORE_COMPACTING = 32;

/**
 * Opens (creating if needed) the memory `name` in IndexedDB.
 *
 * Two tabs: every write holds the Web Lock `vmem:<name>` and checks that no other tab wrote since
 * this one loaded; if one did, the write is refused with `MEMORY_LOCKED` (nothing written) and
 * the caller reopens the memory, except that new rounds are merged (see `concurrentAdds`). After
 * each write a BroadcastChannel message tells other tabs.
 * @example
 * const storage = await createIdbStorage('alice');
 * const memory = await createMemory({ textEncoder, imageEncoder, storage });
 */
export async function createIdbStorage(name: string, options: IdbStorageOptions = {}): Promise<IdbMemoryStorage> {
  assertMemoryName(name);
  let closedReason: string | undefined;
  let migration: Promise<unknown> | undefined;
  let created = false;
  const db = await openStorage(name, () => migration, () =>
    openDB<VmemDbSchema>(DATABASE_PREFIX + name, DATABASE_VERSION, {
      upgrade: (database, oldVersion, _newVersion, tx) => {
        // Decided inside the version change, which IndexedDB runs for one opener at a time.
        created = oldVersion === 0;
        migration = migrateStores(database, oldVersion, tx);
      },
      // Another tab wants to delete or upgrade this database: step aside instead of blocking it.
      blocking: () => {
        closedReason = `memory "${name}" was deleted or upgraded in another tab; open it again`;
        db.close();
      },
      terminated: () => {
        closedReason = `the browser closed the database of memory "${name}" (its site data was cleared, or storage failed); open it again with openMemory`;
        options.onTerminated?.();
      },
    }),
  );
  if (options.createNew && !created) {
    db.close();
    throw new VmemError('MEMORY_EXISTS', `A memory named "${name}" already exists; pick another name, or delete that memory first.`);
  }
  let knownRevision = await readRevision(db);
  /** Ids of the rounds this tab has loaded or written: what tells its new rounds from another tab's. */
  let knownRounds = new Set<string>();
  const mergeAdds = options.concurrentAdds !== 'refuse';

  const ensureOpen = (): VmemDb => {
    if (closedReason !== undefined) throw new VmemError('CLOSED', `Storage is closed: ${closedReason}.`);
    return db;
  };

  const changedElsewhere = (doing: string) =>
    new VmemError('MEMORY_LOCKED', `Memory "${name}" was changed in another tab while ${doing}; nothing was written. Reopen the memory and try again.`);

  /**
   * Runs one write transaction under the tab lock. If another tab wrote first, `body` is told so
   * (`stale`) when it can apply on top of that write (`mergeable`); otherwise the write is refused.
   */
  const write = async (doing: string, body: (tx: WriteTx, stale: boolean) => void | Promise<void>, mergeable = false): Promise<void> => {
    ensureOpen();
    let written = 0;
    let stale = false;
    await withWriteLock(name, async () => {
      const tx = ensureOpen().transaction(['meta', 'chunks', 'images'], 'readwrite');
      await runTransaction(tx, doing, async () => {
        const stored = await tx.objectStore('meta').get('revision');
        const current = stored?.key === 'revision' ? stored.revision : 0;
        stale = current !== knownRevision;
        if (stale && !mergeable) throw changedElsewhere(doing);
        await body(tx, stale);
        written = current + 1;
        queued(tx.objectStore('meta').put({ key: 'revision', revision: written }));
      });
      // After a merge this tab has still not seen the other tab's write: it stays stale, and the
      // announcement below (which it hears too) makes it reload.
      if (!stale) knownRevision = written;
    });
    announceChange({ type: 'written', name, revision: written });
  };

  /**
   * The records as they can be written on top of another tab's write: only rounds new to both tabs,
   * numbered after the last round stored now (so history order is the order writes committed).
   */
  const rebased = async (tx: WriteTx, records: readonly RoundRecord[], doing: string): Promise<readonly RoundRecord[]> => {
    const chunks = tx.objectStore('chunks');
    const images = tx.objectStore('images');
    const imageIds = records.flatMap((record) => record.images.map((image) => image.id));
    const [storedRounds, storedImages, all] = await Promise.all([
      Promise.all(records.map((record) => chunks.index('roundId').getKey(record.round.id))),
      Promise.all(imageIds.map((id) => images.getKey(id))),
      chunks.getAll(),
    ]);
    records.forEach(({ round }, at) => {
      if (knownRounds.has(round.id)) throw changedElsewhere(doing);
      if (storedRounds[at] !== undefined) {
        throw new VmemError('DUPLICATE_ROUND', `Round "${round.id}" was stored in another tab meanwhile; it is not stored twice. Nothing from this write was stored.`);
      }
    });
    const taken = imageIds.find((_, at) => storedImages[at] !== undefined);
    if (taken !== undefined) {
      throw new VmemError('DUPLICATE_ROUND', `Image "${taken}" was stored in another tab meanwhile; image ids must be unique. Nothing from this write was stored.`);
    }
    const lastSeq = all.reduce((last, chunk) => chunk.rounds.reduce((max, round) => Math.max(max, round.seq), last), -1);
    const firstSeq = Math.min(...records.map((record) => record.round.seq));
    const shift = Math.max(0, lastSeq + 1 - firstSeq);
    return shift === 0 ? records : records.map((record) => ({ ...record, round: { ...record.round, seq: record.round.seq + shift } }));
  };

  /** No revision bump: what is stored stays the same, and every write finds rounds' chunks afresh. */
  const compact = async (): Promise<void> => {
    ensureOpen();
    await withWriteLock(name, async () => {
      const tx = ensureOpen().transaction(['chunks'], 'readwrite') as unknown as WriteTx;
      await runTransaction(tx, `compacting memory "${name}"`, async () => {
        const store = tx.objectStore('chunks');
        const small = (await store.getAll()).filter(isSmall);
        if (small.length < 2) return;
        // Blob slices are joined without reading any vector, so nothing awaits inside the transaction.
        for (const chunk of small) queued(store.delete(chunk.key!));
        for (const merged of mergeChunks(small)) queued(store.put(merged));
      });
    });
  };

  /** Rounds and unit facts from one read of a few dozen chunk records; their vector bytes are read after. */
  const loadStaged = async (): Promise<StagedLoad> => {
    const handle = ensureOpen();
    const staged = await guard('loading the memory', async () => {
      const tx = handle.transaction(['meta', 'chunks'], 'readonly');
      const [chunks, revision] = await Promise.all([tx.objectStore('chunks').getAll(), tx.objectStore('meta').get('revision'), tx.done]);
      knownRevision = revision?.key === 'revision' ? revision.revision : 0;
      knownRounds = new Set(chunks.flatMap((chunk) => chunk.roundIds));
      if (chunks.filter(isSmall).length >= SMALL_CHUNKS_BEFORE_COMPACTING) void compact().catch(() => undefined);
      return stageChunks(chunks);
    });
    const vectors = guard('reading the stored vectors', () => staged.vectors);
    // Observed here so a caller that fails before awaiting it leaves no unhandled rejection.
    vectors.catch(() => undefined);
    return { rounds: staged.rounds, units: staged.units, vectors };
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
      const { rounds, units, vectors } = await loadStaged();
      const read = await vectors;
      return { rounds, units: units.map((unit, at) => ({ ...unit, vector: read[at]! })) };
    },
    loadStaged,
    async putRounds(records) {
      if (records.length === 0) return;
      assertStorablePictures(records);
      // In words a user reads: the round ids are the app's business.
      const doing = records.length === 1 ? 'saving a round' : `saving ${records.length.toLocaleString('en')} rounds`;
      // One transaction for the whole batch: a crash or a full disk leaves all of it or none of it.
      await write(
        doing,
        async (tx, stale) => {
          const batch = stale ? await rebased(tx, records, doing) : records;
          // A round written again (a new caption, a reindex) leaves the chunk it was in.
          await removeRounds(tx, batch.map((record) => record.round.id));
          for (const slice of slices(batch)) queued(tx.objectStore('chunks').put(packChunk(slice)));
          for (const record of batch) putImages(tx, record);
        },
        mergeAdds,
      );
      for (const record of records) knownRounds.add(record.round.id);
    },
    async deleteRound(roundId) {
      await write(`forgetting round ${roundId}`, async (tx) => {
        const [imageKeys] = await Promise.all([tx.objectStore('images').index('roundId').getAllKeys(roundId), removeRounds(tx, [roundId])]);
        for (const key of imageKeys) queued(tx.objectStore('images').delete(key));
      });
      knownRounds.delete(roundId);
    },
    async getImage(imageId) {
      const record = await guard(`reading image ${imageId}`, () => ensureOpen().get('images', imageId));
      return record ? { id: record.id, bytes: record.bytes, mimeType: record.mimeType } : undefined;
    },
    async clear() {
      await write(`clearing memory "${name}"`, (tx) => {
        queued(tx.objectStore('chunks').clear());
        queued(tx.objectStore('images').clear());
        queued(tx.objectStore('meta').delete('manifest'));
      });
      knownRounds.clear();
    },
    async close() {
      if (closedReason === undefined) {
        closedReason = `memory "${name}" was closed`;
        db.close();
      }
    },
    compact,
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

/**
 * Opens the database; a failed migration or a database from a newer vmem becomes a `VmemError`
 * that says what happened and what to do.
 */
async function openStorage(name: string, migration: () => Promise<unknown> | undefined, open: () => Promise<VmemDb>): Promise<VmemDb> {
  try {
    return await open();
  } catch (error) {
    const failed = await migration()?.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    if (failed !== undefined) {
      throw new VmemError(
        'STORAGE_FAILED',
        `Upgrading the stored memory "${name}" to storage layout ${DATABASE_VERSION} failed (${String(failed)}); it was rolled back, so the memory is as it was. ` +
          'Reload the page to try again; if it keeps failing, open it with the previous vmem version and export it to a file.',
        { cause: failed },
      );
    }
    if (error instanceof DOMException && error.name === 'VersionError') {
      throw new VmemError(
        'STORAGE_FAILED',
        `Memory "${name}" was saved by a newer version of vmem (its storage layout is newer than ${DATABASE_VERSION}); update or reload the app to open it.`,
        { cause: error },
      );
    }
    throw toStorageError(error, `opening memory "${name}"`);
  }
}

async function readRevision(db: VmemDb): Promise<number> {
  const record = await guard('reading the memory revision', () => db.get('meta', 'revision'));
  return record?.key === 'revision' ? record.revision : 0;
}

function isSmall(chunk: RoundChunk): boolean {
  return chunk.rounds.length < CHUNK_ROUNDS / 8;
}

/** Takes rounds out of the chunks holding them (found by the multi-entry roundId index), inside `tx`. */
async function removeRounds(tx: WriteTx, roundIds: readonly string[]): Promise<void> {
  const store = tx.objectStore('chunks');
  const keys = await Promise.all(roundIds.map((id) => store.index('roundId').getKey(id)));
  const dropFrom = new Map<number, Set<string>>();
  keys.forEach((key, at) => {
    if (key === undefined) return;
    const drop = dropFrom.get(key) ?? new Set<string>();
    drop.add(roundIds[at]!);
    dropFrom.set(key, drop);
  });
  await Promise.all(
    [...dropFrom].map(async ([key, drop]) => {
      const chunk = await store.get(key);
      const rest = chunk && withoutRounds(chunk, drop);
      queued(rest ? store.put(rest) : store.delete(key));
    }),
  );
}

function putImages(tx: WriteTx, record: RoundRecord): void {
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
  const detail = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
  return new VmemError(
    'STORAGE_FAILED',
    `IndexedDB failed while ${doing}: ${detail}. Check that the site may store data (not a private window with storage blocked) and reload.`,
    { cause: error },
  );
}

/** Rejects with `INVALID_INPUT` a memory name IndexedDB could not key (empty, not a string, too long). */
export function assertMemoryName(name: string): void {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) {
    throw new VmemError('INVALID_INPUT', `Memory name must be a non-empty string of at most 200 characters; got ${JSON.stringify(name)}.`);
  }
}

/** Structured clone copies a view's whole buffer; store exactly the image's bytes. */
function compactBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}
