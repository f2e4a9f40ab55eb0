/**
 * IndexedDB storage for browsers: one database per named memory (layout 4), holding
 * - `meta`: the manifest, the write counter (`revision`) and the index commit;
 * - `facts`: the rounds' facts (`RoundFacts`), a record per write batch, all read when a memory opens;
 * - `bodies`: one record per round, read only when a result, an edit or an export needs the round;
 * - `segments`: the index's segments, each a Blob under its SHA-256 name;
 * - `chunks`: rounds stored with their vectors and not indexed yet (layout 3's records, written by
 *   vmem before index segments and by `.vmem` imports); the memory indexes them when it opens;
 * - `images`: image bytes.
 * Every write is one transaction over what it touches, so a round and the index change that goes
 * with it commit together or not at all.
 */
import { deleteDB, openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { VmemError, isVmemError } from '../errors.js';
import type { StoredRound } from '../types.js';
import { announceChange, listenForChanges, withWriteLock, type MemoryChange } from './idb-sync.js';
import { migrateStores } from './idb-migrate.js';
import { CHUNK_ROUNDS, packChunk, slices, unitsOfRounds, withoutRounds, type RoundChunk } from './round-chunk.js';
import { roundFacts, type IndexChange, type IndexCommit, type Manifest, type MemoryStorage, type RoundFacts, type RoundRecord, type StorageState, type StoredImage } from './types.js';
import { assertStorablePictures } from './picture-check.js';
import { yieldAfter } from '../util/yield-task.js';

/** Prefix of every vmem database name, so `listMemories` can tell them from other databases. */
export const DATABASE_PREFIX = 'vmem:';
/**
 * The layout version of the database. 1: a record per round and per unit. 2: chunk records of up to
 * 256 rounds with their units and packed vectors. 3: the chunks' vectors in a Blob. 4: index
 * segments, round facts and round bodies (the chunks stay for rounds not indexed yet). Older layouts
 * are upgraded on open, in the upgrade transaction, so a failed upgrade leaves them as they were;
 * from layout 3 nothing moves then: the memory indexes the chunks' rounds when it opens.
 */
export const DATABASE_VERSION = 4;

/** An image as stored: the bytes plus the round it belongs to, so forgetting a round finds them. */
interface ImageRecord extends StoredImage {
  readonly roundId: string;
}

/** Manifest, write counter and index commit live in one small key/value store. */
type MetaRecord =
  | { readonly key: 'manifest'; readonly manifest: Manifest }
  | { readonly key: 'revision'; readonly revision: number }
  | { readonly key: 'index'; readonly index: IndexCommit };

/**
 * The facts of the rounds one write stored (`roundIds` is indexed, multi-entry, to find a round's
 * record). The facts are one JSON string: opening reads every record, and parsing JSON is several
 * times faster than IndexedDB's structured clone of as many small objects.
 */
export interface FactsRecord {
  readonly key?: number;
  readonly roundIds: readonly string[];
  readonly json: string;
}

function factsOf(record: FactsRecord): RoundFacts[] {
  return JSON.parse(record.json) as RoundFacts[];
}

/** The typed schema: store and index names are checked at compile time. */
export interface VmemDbSchema extends DBSchema {
  meta: { key: MetaRecord['key']; value: MetaRecord };
  facts: { key: number; value: FactsRecord; indexes: { roundId: string } };
  bodies: { key: string; value: { readonly id: string; readonly round: StoredRound } };
  segments: { key: string; value: { readonly id: string; readonly bytes: Blob } };
  chunks: { key: number; value: RoundChunk; indexes: { roundId: string } };
  images: { key: string; value: ImageRecord; indexes: { roundId: string } };
}

type VmemDb = IDBPDatabase<VmemDbSchema>;
type WriteTx = IDBPTransaction<VmemDbSchema, StoreNames<VmemDbSchema>[], 'readwrite'>;
const STORES: StoreNames<VmemDbSchema>[] = ['meta', 'facts', 'bodies', 'segments', 'chunks', 'images'];

/** `MemoryStorage` over IndexedDB, plus what the app needs to follow changes made by other tabs. */
export interface IdbMemoryStorage extends MemoryStorage {
  /** The memory's name (the database is `vmem:<name>`). */
  readonly name: string;
  /** Counts committed writes; another tab's write makes this tab's copy stale. */
  readonly revision: number;
  /**
   * Calls `listener` when another tab wrote to or deleted this memory. The in-page indexes are
   * then stale: reopen the memory (which reads the index segments again, nothing re-encoded).
   * @returns the unsubscribe function
   */
  onRemoteChange(listener: (change: MemoryChange) => void): () => void;
  /**
   * Merges small facts records (single-round writes leave one each) into full ones, without changing
   * what is stored. Opening a memory starts it in the background when there are many.
   */
  compact(): Promise<void>;
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

/** Small facts records (under an eighth of a chunk) tolerated before opening compacts them. */
const SMALL_RECORDS_BEFORE_COMPACTING = 32;

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
  const label = idbMemoryLabel(name);
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
        closedReason = `${label} was deleted or upgraded in another tab; open it again`;
        db.close();
      },
      terminated: () => {
        closedReason = `the browser closed the database of ${label} (its site data was cleared, or storage failed); open it again with openMemory`;
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
  /**
   * Whether `knownRounds` is every round stored, as of `knownRevision`: set once `open` has read them.
   * A write that finds the revision unchanged can then tell new rounds from stored ones without a read.
   */
  let roundsLoaded = false;
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
    prefetched.clear();
    let written = 0;
    let stale = false;
    await withWriteLock(name, async () => {
      const tx = ensureOpen().transaction(STORES, 'readwrite');
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
    const images = tx.objectStore('images');
    const imageIds = records.flatMap((record) => record.images.map((image) => image.id));
    const [storedRounds, storedImages, facts, chunks] = await Promise.all([
      Promise.all(records.map((record) => roundKey(tx, record.round.id))),
      Promise.all(imageIds.map((id) => images.getKey(id))),
      tx.objectStore('facts').getAll(),
      tx.objectStore('chunks').getAll(),
    ]);
    records.forEach(({ round }, at) => {
      if (knownRounds.has(round.id)) throw changedElsewhere(doing);
      if (storedRounds[at]) {
        throw new VmemError('DUPLICATE_ROUND', `Round "${round.id}" was stored in another tab meanwhile; it is not stored twice. Nothing from this write was stored.`);
      }
    });
    const taken = imageIds.find((_, at) => storedImages[at] !== undefined);
    if (taken !== undefined) {
      throw new VmemError('DUPLICATE_ROUND', `Image "${taken}" was stored in another tab meanwhile; image ids must be unique. Nothing from this write was stored.`);
    }
    const seqs = [...facts.flatMap(factsOf), ...chunks.flatMap((chunk) => chunk.rounds)].map((round) => round.seq);
    const lastSeq = seqs.reduce((last, seq) => Math.max(last, seq), -1);
    const firstSeq = Math.min(...records.map((record) => record.round.seq));
    const shift = Math.max(0, lastSeq + 1 - firstSeq);
    return shift === 0 ? records : records.map((record) => ({ ...record, round: { ...record.round, seq: record.round.seq + shift } }));
  };

  /** No revision bump: what is stored stays the same, and every write finds rounds' facts afresh. */
  const compact = async (): Promise<void> => {
    ensureOpen();
    await withWriteLock(name, async () => {
      const tx = ensureOpen().transaction(['facts'], 'readwrite') as unknown as WriteTx;
      await runTransaction(tx, `compacting ${label}`, async () => {
        const store = tx.objectStore('facts');
        const small = (await store.getAll()).filter((record) => record.roundIds.length < CHUNK_ROUNDS / 8);
        if (small.length < 2) return;
        for (const record of small) queued(store.delete(record.key!));
        const rounds = small.flatMap(factsOf).sort((a, b) => a.seq - b.seq);
        for (const slice of slices(rounds)) queued(store.put(factsRecord(slice)));
      });
    });
  };

  /**
   * The committed segments' bytes, by id, read as soon as `open` knows the commit: the Blob reads run
   * off the main thread while the caller parses the facts, and `readSegments` takes them, each as
   * soon as it is in (an encrypted store decrypts one while the next is read).
   */
  let prefetched = new Map<string, Promise<Uint8Array | undefined>>();

  const readBlob = (record: { bytes: Blob } | undefined) =>
    guard(`reading the index of ${label}`, async () => (record ? new Uint8Array(await record.bytes.arrayBuffer()) : undefined));
  const readBlobs = (records: readonly ({ bytes: Blob } | undefined)[]) => Promise.all(records.map(readBlob));

  const open = async (): Promise<StorageState> => {
    const handle = ensureOpen();
    return guard(`opening ${label}`, async () => {
      const tx = handle.transaction(['meta', 'facts', 'chunks', 'segments'], 'readonly');
      const index = await tx.objectStore('meta').get('index');
      const commit = index?.key === 'index' ? index.index : undefined;
      const ids = commit?.segments.map((segment) => segment.id) ?? [];
      const [facts, chunks, revision, segments] = await Promise.all([
        tx.objectStore('facts').getAll(),
        tx.objectStore('chunks').getAll(),
        tx.objectStore('meta').get('revision'),
        Promise.all(ids.map((id) => tx.objectStore('segments').get(id))),
        tx.done,
      ]);
      prefetched = new Map(
        segments.map((record, at) => {
          const bytes = readBlob(record);
          // Observed here: a caller that never asks for the segments must not leave an unhandled rejection.
          bytes.catch(() => undefined);
          return [ids[at]!, bytes];
        }),
      );
      knownRevision = revision?.key === 'revision' ? revision.revision : 0;
      const legacy = chunks.flatMap((chunk) => chunk.rounds.map(roundFacts));
      // Parsing 100,000 rounds' facts took 40-50 ms: the page gets a turn between records.
      const parsed: RoundFacts[] = [];
      const pause = yieldAfter();
      for (const record of facts) {
        for (const round of factsOf(record)) parsed.push(round);
        await pause();
      }
      const rounds = [...parsed, ...legacy].sort((a, b) => a.seq - b.seq);
      knownRounds = new Set(rounds.map((round) => round.id));
      roundsLoaded = true;
      if (facts.filter((record) => record.roundIds.length < CHUNK_ROUNDS / 8).length >= SMALL_RECORDS_BEFORE_COMPACTING) void compact().catch(() => undefined);
      const unindexed = new Set(legacy.map((round) => round.id));
      return { rounds, index: commit, unindexed: rounds.filter((round) => unindexed.has(round.id)).map((round) => round.id) };
    });
  };

  /** The index change inside a write: new segments, the commit, and the segments it no longer names deleted. */
  const storeIndex = async (tx: WriteTx, change: IndexChange, stale: boolean): Promise<void> => {
    const meta = tx.objectStore('meta');
    const segments = tx.objectStore('segments');
    const before = await meta.get('index');
    const previous = before?.key === 'index' ? before.index : { segments: [] };
    // A write merged on top of another tab's adds its new segments to that tab's commit.
    const added = new Set(change.add.map((segment) => segment.id));
    const commit = stale ? { segments: [...previous.segments, ...change.commit.segments.filter((segment) => added.has(segment.id))] } : change.commit;
    for (const segment of change.add) queued(segments.put({ id: segment.id, bytes: new Blob([segment.bytes as Uint8Array<ArrayBuffer>]) }));
    queued(meta.put({ key: 'index', index: commit }));
    const named = new Set(commit.segments.map((segment) => segment.id));
    for (const segment of previous.segments) if (!named.has(segment.id)) queued(segments.delete(segment.id));
  };

  return {
    name,
    label,
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
    open,
    async readSegments(ids) {
      const handle = ensureOpen();
      // Each prefetched segment is handed out once (its bytes are the caller's), to one call for all or to one call each.
      if (ids.every((id) => prefetched.has(id))) {
        const ready = ids.map((id) => prefetched.get(id)!);
        for (const id of ids) prefetched.delete(id);
        return Promise.all(ready);
      }
      const records = await guard(`reading the index of ${label}`, async () => {
        const tx = handle.transaction(['segments'], 'readonly');
        const found = await Promise.all(ids.map((id) => tx.objectStore('segments').get(id)));
        await tx.done;
        return found;
      });
      // Blob bytes are read after the transaction, in parallel, off the main thread.
      return readBlobs(records);
    },
    async readUnits(roundIds) {
      const handle = ensureOpen();
      const wanted = new Set(roundIds);
      const chunks = await guard(`reading stored vectors of ${label}`, async () => {
        const tx = handle.transaction(['chunks'], 'readonly');
        const keys = new Set((await Promise.all(roundIds.map((id) => tx.objectStore('chunks').index('roundId').getKey(id)))).filter((key): key is number => key !== undefined));
        const found = await Promise.all([...keys].map((key) => tx.objectStore('chunks').get(key)));
        await tx.done;
        return found.filter((chunk): chunk is RoundChunk => chunk !== undefined);
      });
      const units = await guard(`reading stored vectors of ${label}`, () => Promise.all(chunks.map((chunk) => unitsOfRounds(chunk, wanted))));
      return units.flat();
    },
    async getRounds(roundIds) {
      const handle = ensureOpen();
      return guard(`reading rounds of ${label}`, async () => {
        const tx = handle.transaction(['bodies', 'chunks'], 'readonly');
        const bodies = await Promise.all(roundIds.map((id) => tx.objectStore('bodies').get(id)));
        const rounds: (StoredRound | undefined)[] = bodies.map((body) => body?.round);
        const missing = roundIds.filter((_, at) => rounds[at] === undefined);
        if (missing.length > 0) {
          // Rounds not indexed yet are still in their chunks.
          const chunks = await Promise.all(missing.map((id) => tx.objectStore('chunks').index('roundId').get(id)));
          const byId = new Map(chunks.flatMap((chunk) => chunk?.rounds ?? []).map((round) => [round.id, round]));
          roundIds.forEach((id, at) => (rounds[at] ??= byId.get(id)));
        }
        await tx.done;
        return rounds;
      });
    },
    async putRounds(records, change) {
      if (records.length === 0) return;
      assertStorablePictures(records);
      // In words a user reads: the round ids are the app's business.
      const doing = records.length === 1 ? 'saving a round' : `saving ${records.length.toLocaleString('en')} rounds`;
      // One transaction for the whole batch and its index change: a crash or a full disk leaves all of it or none of it.
      await write(
        doing,
        async (tx, stale) => {
          const batch = stale ? await rebased(tx, records, doing) : records;
          // A round written again (a new caption, an edit) leaves the records it was in. A new round is
          // in none: when no other tab wrote, this tab knows which are new and skips their index reads
          // (a key that is not there costs the most to look up, and more the larger the database).
          const written = stale || !roundsLoaded ? batch : batch.filter((record) => knownRounds.has(record.round.id));
          await removeRounds(tx, written.map((record) => record.round.id));
          if (change) {
            for (const slice of slices(batch)) queued(tx.objectStore('facts').put(factsRecord(slice.map((record) => roundFacts(record.round)))));
            for (const record of batch) queued(tx.objectStore('bodies').put({ id: record.round.id, round: record.round }));
            await storeIndex(tx, change, stale);
          } else {
            for (const slice of slices(batch)) queued(tx.objectStore('chunks').put(packChunk(slice)));
          }
          for (const record of batch) putImages(tx, record);
        },
        mergeAdds,
      );
      for (const record of records) knownRounds.add(record.round.id);
    },
    async deleteRounds(roundIds, change) {
      await write(`forgetting ${roundIds.length === 1 ? `round ${roundIds[0]}` : `${roundIds.length} rounds`}`, async (tx) => {
        const images = tx.objectStore('images');
        const [imageKeys] = await Promise.all([Promise.all(roundIds.map((id) => images.index('roundId').getAllKeys(id))), removeRounds(tx, roundIds)]);
        for (const key of imageKeys.flat()) queued(images.delete(key));
        for (const id of roundIds) queued(tx.objectStore('bodies').delete(id));
        if (change) await storeIndex(tx, change, false);
      });
      for (const id of roundIds) knownRounds.delete(id);
    },
    async writeIndex(change, indexed = []) {
      await write(`saving the index of ${label}`, async (tx) => {
        if (indexed.length > 0) await moveIndexed(tx, indexed);
        await storeIndex(tx, change, false);
      });
    },
    async getImage(imageId) {
      const record = await guard(`reading image ${imageId}`, () => ensureOpen().get('images', imageId));
      return record ? { id: record.id, bytes: record.bytes, mimeType: record.mimeType } : undefined;
    },
    async clear() {
      await write(`clearing ${label}`, (tx) => {
        for (const store of ['facts', 'bodies', 'segments', 'chunks', 'images'] as const) queued(tx.objectStore(store).clear());
        queued(tx.objectStore('meta').delete('manifest'));
        queued(tx.objectStore('meta').delete('index'));
      });
      knownRounds.clear();
    },
    async close() {
      prefetched.clear();
      if (closedReason === undefined) {
        closedReason = `${label} was closed`;
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

/** How errors and the sync replica name the memory `name`. */
export function idbMemoryLabel(name: string): string {
  return `memory "${name}"`;
}

/**
 * Deletes the memory `name` with everything in it, and the databases `alongside` it (its sync
 * replica). Other tabs holding it open are told to close it first; if one does not within 5 s,
 * rejects with `MEMORY_LOCKED`.
 */
export async function deleteMemory(name: string, alongside: readonly string[] = []): Promise<void> {
  assertMemoryName(name);
  announceChange({ type: 'deleted', name });
  for (const database of [DATABASE_PREFIX + name, ...alongside]) await deleteDatabase(name, database);
}

async function deleteDatabase(name: string, database: string): Promise<void> {
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
      const deleted = deleteDB(database);
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

function factsRecord(rounds: readonly RoundFacts[]): FactsRecord {
  return { roundIds: rounds.map((round) => round.id), json: JSON.stringify(rounds) };
}

/** Whether a round is stored, indexed or not. */
async function roundKey(tx: WriteTx, roundId: string): Promise<boolean> {
  const [facts, chunk] = await Promise.all([tx.objectStore('facts').index('roundId').getKey(roundId), tx.objectStore('chunks').index('roundId').getKey(roundId)]);
  return facts !== undefined || chunk !== undefined;
}

/** Takes rounds out of the facts records and chunks holding them (found by their multi-entry roundId indexes), inside `tx`. */
async function removeRounds(tx: WriteTx, roundIds: readonly string[]): Promise<void> {
  const drop = new Set(roundIds);
  const facts = tx.objectStore('facts');
  const chunks = tx.objectStore('chunks');
  const [factKeys, chunkKeys] = await Promise.all([
    Promise.all(roundIds.map((id) => facts.index('roundId').getKey(id))),
    Promise.all(roundIds.map((id) => chunks.index('roundId').getKey(id))),
  ]);
  await Promise.all([
    ...[...new Set(factKeys.filter((key): key is number => key !== undefined))].map(async (key) => {
      const record = await facts.get(key);
      const rest = record ? factsOf(record).filter((round) => !drop.has(round.id)) : [];
      queued(rest.length > 0 ? facts.put({ ...factsRecord(rest), key }) : facts.delete(key));
    }),
    ...[...new Set(chunkKeys.filter((key): key is number => key !== undefined))].map(async (key) => {
      const chunk = await chunks.get(key);
      const rest = chunk && withoutRounds(chunk, drop);
      queued(rest ? chunks.put(rest) : chunks.delete(key));
    }),
  ]);
}

/** Rounds the index now holds move from their chunks (vectors and all) to facts and bodies. */
async function moveIndexed(tx: WriteTx, roundIds: readonly string[]): Promise<void> {
  const wanted = new Set(roundIds);
  const chunks = tx.objectStore('chunks');
  const keys = await Promise.all(roundIds.map((id) => chunks.index('roundId').getKey(id)));
  const records = await Promise.all([...new Set(keys.filter((key): key is number => key !== undefined))].map((key) => chunks.get(key)));
  const rounds = records.flatMap((chunk) => chunk?.rounds.filter((round) => wanted.has(round.id)) ?? []).sort((a, b) => a.seq - b.seq);
  await removeRounds(tx, rounds.map((round) => round.id));
  for (const slice of slices(rounds)) queued(tx.objectStore('facts').put(factsRecord(slice.map(roundFacts))));
  for (const round of rounds) queued(tx.objectStore('bodies').put({ id: round.id, round }));
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

