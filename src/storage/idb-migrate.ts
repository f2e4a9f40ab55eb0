/**
 * Creates and upgrades a memory's IndexedDB stores. Runs inside the version-change transaction,
 * so an upgrade that fails part-way is rolled back whole and the database keeps its old layout.
 */
import type { IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';
import type { StoredRound, StoredUnit } from '../types.js';
import type { VmemDbSchema } from './idb.js';
import { packChunk, slices, withBlobVectors, type RoundChunk } from './round-chunk.js';

type UpgradeTx = IDBPTransaction<VmemDbSchema, StoreNames<VmemDbSchema>[], 'versionchange'>;

/** Layout 1's stores, read only to migrate them. */
interface LegacyStores {
  rounds: StoredRound;
  units: StoredUnit;
}

/**
 * Brings the stores from `oldVersion` to the current layout. Resolves when every request is queued;
 * a rejection means the caller must abort `tx` (the promise is awaited by `createIdbStorage`).
 */
export async function migrateStores(db: IDBPDatabase<VmemDbSchema>, oldVersion: number, tx: UpgradeTx): Promise<void> {
  try {
    if (oldVersion < 1) {
      db.createObjectStore('meta', { keyPath: 'key' });
      db.createObjectStore('images', { keyPath: 'id' }).createIndex('roundId', 'roundId');
    }
    if (oldVersion < 2) {
      const chunks = db.createObjectStore('chunks', { keyPath: 'key', autoIncrement: true });
      chunks.createIndex('roundId', 'roundIds', { multiEntry: true });
      if (oldVersion === 1) await packLegacyRounds(db, tx);
    }
    if (oldVersion === 2) await blobVectors(tx);
    if (oldVersion < 4) {
      // Layout 3's chunks stay as they are: their rounds are indexed (and moved) when the memory opens.
      db.createObjectStore('facts', { keyPath: 'key', autoIncrement: true }).createIndex('roundId', 'roundIds', { multiEntry: true });
      db.createObjectStore('bodies', { keyPath: 'id' });
      db.createObjectStore('segments', { keyPath: 'id' });
    }
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // Already finished or aborted: nothing was committed by this upgrade either way.
    }
    throw error;
  }
}

/** Layout 2 → 3: each chunk's vectors move from a Float32Array into a Blob (same bytes). */
async function blobVectors(tx: UpgradeTx): Promise<void> {
  const chunks = tx.objectStore('chunks');
  const all = (await chunks.getAll()) as RoundChunk[];
  for (const chunk of all) void chunks.put(withBlobVectors(chunk)).catch(() => undefined);
}

/** Layout 1 → 3's chunks: rounds with their units' vectors packed; the old stores are dropped. */
async function packLegacyRounds(db: IDBPDatabase<VmemDbSchema>, tx: UpgradeTx): Promise<void> {
  const legacy = tx as unknown as { objectStore<K extends keyof LegacyStores>(name: K): { getAll(): Promise<LegacyStores[K][]> } };
  const [rounds, units] = await Promise.all([legacy.objectStore('rounds').getAll(), legacy.objectStore('units').getAll()]);
  const unitsOf = new Map<string, StoredUnit[]>();
  for (const unit of units) {
    const list = unitsOf.get(unit.roundId) ?? [];
    list.push(unit);
    unitsOf.set(unit.roundId, list);
  }
  const chunks = tx.objectStore('chunks');
  const items = rounds.sort((a, b) => a.seq - b.seq).map((round) => ({ round, units: unitsOf.get(round.id) ?? [] }));
  for (const slice of slices(items)) void chunks.put(packChunk(slice)).catch(() => undefined);
  const untyped = db as unknown as { deleteObjectStore(name: string): void };
  untyped.deleteObjectStore('rounds');
  untyped.deleteObjectStore('units');
}
