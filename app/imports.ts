/**
 * Imports of dialogue files that have not finished, kept in the demo's own IndexedDB database: a
 * tab closed, a crash or a failure mid-import leaves a memory with only some of the rounds, and the
 * app must say so the next time that memory opens, and offer to resume or delete it. IndexedDB, not
 * localStorage: a killed browser loses localStorage writes of the last seconds, but not committed
 * IndexedDB ones, so the note is there whenever the first batch of rounds is.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

/** An import that started and has not finished. */
export interface PendingImport {
  /** The memory the rounds go into. */
  readonly memory: string;
  /** The file the user chose; resuming asks for it again. */
  readonly fileName: string;
  /** The dialogue's own title, to check that a resumed file is the same dialogue. */
  readonly title: string;
  /** Rounds in the file. */
  readonly total: number;
  /** Ids of the file's rounds: how many are stored is counted in the memory, never remembered. */
  readonly roundIds: readonly string[];
}

interface DemoDb extends DBSchema {
  'pending-imports': { key: string; value: PendingImport };
}

const DATABASE = 'vmem-demo-state';
let database: Promise<IDBPDatabase<DemoDb>> | undefined;

function db(): Promise<IDBPDatabase<DemoDb>> {
  database ??= openDB<DemoDb>(DATABASE, 1, {
    upgrade: (upgrade) => void upgrade.createObjectStore('pending-imports', { keyPath: 'memory' }),
    // The site's data was cleared (or another tab upgrades): open afresh next time.
    terminated: () => (database = undefined),
    blocking: () => {
      void database?.then((open) => open.close());
      database = undefined;
    },
  }).catch((error: unknown) => {
    database = undefined;
    throw error;
  });
  return database;
}

/** Every import not finished, by memory name. */
export async function pendingImports(): Promise<Record<string, PendingImport>> {
  const all = await (await db()).getAll('pending-imports');
  return Object.fromEntries(all.map((pending) => [pending.memory, pending]));
}

/** Records an import before its first round is stored. */
export async function notePendingImport(pending: PendingImport): Promise<void> {
  await (await db()).put('pending-imports', pending);
}

/** Forgets the import into `memory` (it finished, or the memory was deleted). */
export async function clearPendingImport(memory: string): Promise<void> {
  await (await db()).delete('pending-imports', memory);
}
