import type { EncoderIds, StoredRound, StoredUnit } from '../types.js';

export const SCHEMA_VERSION = 1;

/** What a memory records about itself. */
export interface Manifest {
  readonly schemaVersion: number;
  readonly encoders: EncoderIds;
  /** Epoch ms. */
  readonly createdAt: number;
}

export interface StoredImage {
  readonly id: string;
  readonly bytes: Uint8Array;
  readonly mimeType: string;
}

/** `MemoryStorage.loadStaged`'s answer: rounds in `seq` order and unit facts now, vectors later. */
export interface StagedLoad {
  readonly rounds: StoredRound[];
  readonly units: Omit<StoredUnit, 'vector'>[];
  readonly vectors: Promise<Float32Array[]>;
}

/** Everything one round writes; storage writes it all or nothing. */
export interface RoundRecord {
  readonly round: StoredRound;
  readonly units: readonly StoredUnit[];
  readonly images: readonly StoredImage[];
}

/**
 * Where a memory persists. In-memory for Node and benchmarks; IndexedDB in browsers.
 * Implementations write each round atomically and surface quota problems as `VmemError('QUOTA_EXCEEDED')`.
 */
export interface MemoryStorage {
  readManifest(): Promise<Manifest | undefined>;
  writeManifest(manifest: Manifest): Promise<void>;
  /** All rounds (in `seq` order) and all units, to rebuild indexes without re-encoding. */
  loadAll(): Promise<{ rounds: StoredRound[]; units: StoredUnit[] }>;
  /**
   * Optional: the same as `loadAll`, in two stages, so the caller can index texts while vector bytes
   * are still being read. `vectors` holds the units' vectors in `units` order.
   */
  loadStaged?(): Promise<StagedLoad>;
  /** Writes rounds with their units and image bytes; each record atomically. */
  putRounds(records: readonly RoundRecord[]): Promise<void>;
  /** Removes a round, its units and its images. */
  deleteRound(roundId: string): Promise<void>;
  getImage(imageId: string): Promise<StoredImage | undefined>;
  /** Drops every round, unit, image and the manifest. */
  clear(): Promise<void>;
  close(): Promise<void>;
}
