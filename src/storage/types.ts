import type { EncoderIds, StoredRound, StoredUnit } from '../types.js';
import { onlyPlans } from '../round-tense.js';
import type { KeyRecord } from './sealer.js';

export const SCHEMA_VERSION = 1;

/** What a memory records about itself. */
export interface Manifest {
  readonly schemaVersion: number;
  readonly encoders: EncoderIds;
  /** Epoch ms. */
  readonly createdAt: number;
  /**
   * Set only in what an encrypted memory hands its store (see encrypted-storage.ts): the wrapped data
   * key, and the real manifest sealed (base64). A memory that reads it was opened without its passphrase.
   */
  readonly encryption?: KeyRecord;
  readonly sealed?: string;
  /** Set while a memory is being encrypted in place: some rounds may still be plain (see `encryptStorageInPlace`). */
  readonly encrypting?: true;
}

export interface StoredImage {
  readonly id: string;
  readonly bytes: Uint8Array;
  readonly mimeType: string;
}

/** What opening a memory needs to know of a picture, without reading its round. */
export interface ImageFacts {
  readonly id: string;
  readonly hasBytes: boolean;
  /** Who wrote its machine-derived description (`DerivedDescription.by`), when it has one. */
  readonly describedBy?: string;
}

/**
 * A round as opening a memory reads it: where it sits in the history and what filters and
 * neighbours look at. The round itself (its texts, captions, descriptions) stays in storage until a
 * result, an edit or an export asks for it (`MemoryStorage.getRounds`).
 */
export interface RoundFacts {
  readonly id: string;
  readonly seq: number;
  readonly sessionId: string;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly meta?: Readonly<Record<string, string | number | boolean>>;
  readonly images: readonly ImageFacts[];
  /** The user's turn plans rather than reports (a past-tense question about its time prefers reports). */
  readonly onlyPlans?: true;
}

/** The facts of a round (storage keeps them beside it). */
export function roundFacts(round: StoredRound): RoundFacts {
  const images = [...round.user.images, ...round.assistant.images].map((image) => ({
    id: image.id,
    hasBytes: image.hasBytes,
    ...(image.derived ? { describedBy: image.derived.by } : {}),
  }));
  return {
    id: round.id,
    seq: round.seq,
    sessionId: round.sessionId,
    timestamp: round.timestamp,
    ...(round.meta ? { meta: round.meta } : {}),
    images,
    ...(onlyPlans(round.user.text) ? { onlyPlans: true as const } : {}),
  };
}

/** Everything one round writes; storage writes it all or nothing. */
export interface RoundRecord {
  readonly round: StoredRound;
  /**
   * The round's units with their vectors, for a round stored without the index (an import, a
   * storage written by an older vmem): the memory indexes it when it next opens. Empty for a round
   * written with an `IndexChange`, whose vectors live in the index's segments.
   */
  readonly units: readonly StoredUnit[];
  readonly images: readonly StoredImage[];
}

/** Everything a memory holds, whole: what an export writes (`memoryContents`) and an import reads (idb-file.ts). */
export interface MemorySnapshot {
  readonly manifest: Manifest;
  readonly rounds: readonly StoredRound[];
  readonly units: readonly StoredUnit[];
  readonly images: readonly (StoredImage & { readonly roundId: string })[];
}

/** An index segment: immutable bytes, named by their SHA-256 (hex). Storage keeps them as they are. */
export interface IndexSegment {
  readonly id: string;
  readonly bytes: Uint8Array;
}

/** A segment of the index as the commit names it: its rounds, and which of them are dead since it was written. */
export interface CommittedSegment {
  readonly id: string;
  readonly rounds: number;
  /** Local numbers (0-based, within the segment) of its rounds that were forgotten or replaced since. */
  readonly dead: readonly number[];
  /** In an encrypted memory's store: this entry of the real commit, sealed (base64); `id` is then the stored segment's name. */
  readonly sealed?: string;
}

/** Which segments make up the index now, in order (Lucene's SegmentInfos). */
export interface IndexCommit {
  readonly segments: readonly CommittedSegment[];
  /** In what an encrypted memory stored before its commit was sealed entry by entry (see `CommittedSegment.sealed`): the real commit, sealed (base64). */
  readonly sealed?: string;
}

/**
 * A change of the index, stored in the same atomic step as the rounds it goes with: the new segments,
 * and the commit after the write. Storage drops the segments the commit no longer names.
 */
export interface IndexChange {
  readonly add: readonly IndexSegment[];
  readonly commit: IndexCommit;
}

/** What opening a memory reads from storage. */
export interface StorageState {
  /** Every round's facts, in `seq` order. */
  readonly rounds: readonly RoundFacts[];
  /** The index; undefined when none was ever written (a new memory, or one stored by an older vmem). */
  readonly index: IndexCommit | undefined;
  /** Rounds stored with their units' vectors and not in the index yet (imports, older versions), in `seq` order. */
  readonly unindexed: readonly string[];
}

/**
 * Where a memory persists: in memory for Node and benchmarks, IndexedDB in browsers, a folder in Node.
 * It keeps rounds (their facts readable at once, the rest when asked), image bytes and the index's
 * segments as opaque blobs; it never indexes or encodes. Implementations write each call atomically
 * (rounds and the index change that goes with them together) and surface quota problems as
 * `VmemError('QUOTA_EXCEEDED')`.
 */
export interface MemoryStorage {
  /** How messages name this memory, e.g. `memory "alice"` or a folder. */
  readonly label: string;
  readManifest(): Promise<Manifest | undefined>;
  writeManifest(manifest: Manifest): Promise<void>;
  /** The facts of every round and the index commit: all that opening reads besides the segments. */
  open(): Promise<StorageState>;
  /**
   * The bytes of these segments, in order (undefined for one it does not hold: the memory rebuilds
   * it). They are the caller's: it may transfer them to a worker, so a store never hands out bytes it keeps.
   */
  readSegments(ids: readonly string[]): Promise<(Uint8Array | undefined)[]>;
  /** The units, vectors included, of rounds stored without the index (`StorageState.unindexed`). */
  readUnits(roundIds: readonly string[]): Promise<StoredUnit[]>;
  /** These rounds, in order (undefined for one not stored). */
  getRounds(roundIds: readonly string[]): Promise<(StoredRound | undefined)[]>;
  /**
   * Writes rounds with their image bytes, replacing rounds of the same id. With `index`, the records'
   * units are empty and the change is stored with them; without it, the records keep their units
   * (vectors included) until the memory indexes them.
   */
  putRounds(records: readonly RoundRecord[], index?: IndexChange): Promise<void>;
  /** Removes rounds with their images, and stores the index change that marks them dead. */
  deleteRounds(roundIds: readonly string[], index?: IndexChange): Promise<void>;
  /**
   * Stores an index change alone (a merge, a rebuild): the rounds stay as they are. `indexed` names
   * rounds stored without the index whose units the change's segments now hold: storage may drop
   * their stored vectors.
   */
  writeIndex(index: IndexChange, indexed?: readonly string[]): Promise<void>;
  getImage(imageId: string): Promise<StoredImage | undefined>;
  /** Drops every round, image, segment and the manifest. */
  clear(): Promise<void>;
  close(): Promise<void>;
}
