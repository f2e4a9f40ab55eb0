import type { ProgressCallback } from '../progress.js';
import type { StoredImage } from '../storage/types.js';
import type { EncoderIds, StoredRound, StoredUnit } from '../types.js';

/** How `memory.sync` is started. */
export interface SyncOptions {
  /**
   * The CouchDB database to replicate with (Apache CouchDB, or express-pouchdb / pouchdb-server in
   * tests). Credentials go in the URL or in `headers`; they are sent to that server only.
   * @example 'https://couch.example.org/alice-memory'
   */
  readonly url: string;
  /**
   * Keep replicating (and retrying after the server drops) until cancelled.
   * @default false: one pass both ways, then the handle's `done` settles
   */
  readonly live?: boolean;
  /**
   * Seals everything the server stores (end-to-end encryption). Required when the memory is locked
   * with a passphrase; every device syncing the same database needs the same sync passphrase. It
   * unwraps the database's sync key on this device and is never sent.
   */
  readonly passphrase?: string;
  /**
   * Where this device keeps its replica of the database, with the replication checkpoints (so a sync
   * resumes where it stopped). Browsers: an IndexedDB database of this name. Node: a folder (LevelDB);
   * without it, the replica lives in memory, which suits a memory that also lives in memory only.
   * @default browsers: `vmem-sync-` + the memory's label; Node: in memory
   */
  readonly replica?: string;
  /** Extra HTTP headers for every request to the server (e.g. `Authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Stops the sync, as `cancel()` does. */
  readonly signal?: AbortSignal;
  /** Task `sync`: `progress` counts documents pushed plus pulled in a pass, unit `documents`. */
  readonly onProgress?: ProgressCallback;
}

/** A running sync. */
export interface SyncHandle {
  /** Settles when a one-shot sync has finished (or a live one was cancelled); rejects with `SYNC_*` errors. */
  readonly done: Promise<void>;
  /** Stops replicating after the current step; the checkpoints stay, so `resume` goes on from there. */
  pause(): void;
  resume(): void;
  /** Stops for good; `done` resolves. */
  cancel(): void;
}

/** What `memory.syncState()` says. */
export interface SyncState {
  /** `idle`: no sync started (or it finished); `paused`; `active`: a pass runs; `waiting`: live and up to date; `failed`: see `error`. */
  readonly status: 'idle' | 'active' | 'waiting' | 'paused' | 'failed';
  readonly url?: string;
  /** Rounds this device sent, and received, since the sync started. */
  readonly pushed: number;
  readonly pulled: number;
  /** Rounds forgotten here because another device forgot them. */
  readonly forgotten: number;
  /** Received rounds that had to be encoded here (0 when the sender's encoders match this memory's). */
  readonly reencoded: number;
  /** Concurrent edits of one round resolved by the conflict rule (last writer by time wins). */
  readonly conflicts: number;
  /** Epoch ms of the last pass that finished. */
  readonly lastSyncedAt?: number;
  readonly error?: { readonly code: string; readonly message: string };
}

/** A round as another device sent it: the round, its pictures, and its units when its encoders match. */
export interface IncomingRound {
  readonly round: StoredRound;
  readonly images: readonly StoredImage[];
  readonly units?: readonly StoredUnit[];
}

/**
 * What sync reads and writes of a memory (the memory hands it over; src/sync knows nothing else of
 * it). Writes go through the memory's write queue like any other.
 */
export interface SyncPort {
  readonly label: string;
  readonly encoders: EncoderIds;
  /** Whether the memory is locked with a passphrase (then the sync must be end-to-end encrypted). */
  readonly encrypted: boolean;
  roundIds(): string[];
  getRounds(ids: readonly string[]): Promise<(StoredRound | undefined)[]>;
  /** The round's units with their vectors, as the index holds them. */
  unitsOf(round: StoredRound): StoredUnit[];
  getImage(imageId: string): Promise<StoredImage | undefined>;
  /** Epoch ms of the round's last write in this page or process, when there was one. */
  writtenAt(roundId: string): number | undefined;
  /** Stores received rounds and forgets rounds other devices forgot; says how many rounds it had to encode. */
  applyRemote(put: readonly IncomingRound[], forget: readonly string[]): Promise<{ reencoded: number }>;
  /** Calls `listener` after each local write with the round ids it touched; returns the unsubscribe. */
  onWrite(listener: (roundIds: readonly string[]) => void): () => void;
}
