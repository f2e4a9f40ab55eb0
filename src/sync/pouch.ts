/**
 * PouchDB, loaded on the first `memory.sync` (it is an optional peer: a memory that never syncs
 * never loads it, and an app that never syncs need not install it). The replica's adapter is chosen
 * by where it runs: IndexedDB in browsers, LevelDB in a Node folder, memory otherwise.
 */
import { importPouchCore, importReplicaAdapter } from './pouch-modules.js';

export interface PouchAttachment {
  readonly content_type: string;
  /** Base64 when written; with `binary: true` reads, a Buffer in Node or a Blob in browsers. */
  readonly data?: string | Uint8Array | Blob;
  readonly stub?: boolean;
  readonly digest?: string;
}

export interface PouchDoc {
  _id: string;
  _rev?: string;
  _deleted?: boolean;
  _conflicts?: string[];
  _deleted_conflicts?: string[];
  _attachments?: Record<string, PouchAttachment>;
  [field: string]: unknown;
}

export interface PouchChange {
  readonly id: string;
  readonly seq: number | string;
  readonly deleted?: boolean;
  readonly changes: readonly { rev: string }[];
  readonly doc?: PouchDoc;
}

export interface PouchReplication extends PromiseLike<unknown> {
  on(event: 'change', listener: (info: { direction?: 'push' | 'pull'; change?: { docs_written?: number; docs_read?: number } }) => void): this;
  on(event: 'paused' | 'active' | 'complete' | 'denied' | 'error', listener: (info: unknown) => void): this;
  cancel(): void;
}

export interface PouchDatabase {
  get(id: string, options?: Record<string, unknown>): Promise<PouchDoc>;
  put(doc: PouchDoc): Promise<{ ok: boolean; id: string; rev: string }>;
  bulkDocs(docs: readonly PouchDoc[], options?: Record<string, unknown>): Promise<({ ok?: boolean; id?: string; rev?: string; error?: string; status?: number })[]>;
  allDocs(options?: Record<string, unknown>): Promise<{ rows: { id: string; value: { rev: string; deleted?: boolean }; doc?: PouchDoc }[] }>;
  changes(options?: Record<string, unknown>): Promise<{ results: PouchChange[]; last_seq: number | string }>;
  info(): Promise<{ doc_count: number; update_seq: number | string }>;
  close(): Promise<void>;
  destroy(): Promise<void>;
}

export interface PouchStatic {
  new (name: string, options?: Record<string, unknown>): PouchDatabase;
  plugin(plugin: unknown): PouchStatic;
  sync(local: PouchDatabase, remote: PouchDatabase, options?: Record<string, unknown>): PouchReplication;
}

export type ReplicaAdapter = 'idb' | 'leveldb' | 'memory';

let loaded: Promise<PouchStatic> | undefined;

/** PouchDB with the HTTP adapter, replication and the replica's adapter. A failed load is retried next time. */
export function loadPouch(adapter: ReplicaAdapter): Promise<PouchStatic> {
  const load = async () => {
    const { PouchDB, http, replication } = await importPouchCore();
    return PouchDB.plugin(http).plugin(replication);
  };
  loaded ??= load().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded.then(async (PouchDB) => PouchDB.plugin(await importReplicaAdapter(adapter)));
}
