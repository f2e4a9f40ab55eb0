import type { StoredRound, StoredUnit } from '../types.js';
import { roundFacts, type IndexChange, type IndexCommit, type Manifest, type MemoryStorage, type RoundRecord, type StoredImage } from './types.js';
import { assertStorablePictures } from './picture-check.js';

/**
 * Storage that lives and dies with the process: for Node, tests and benchmarks. It keeps the same
 * things the persistent stores keep (rounds, the index's segments, image bytes), so a memory over
 * it takes the same paths.
 * @example const memory = await createMemory({ textEncoder, storage: createInMemoryStorage() });
 */
export function createInMemoryStorage(): MemoryStorage {
  let manifest: Manifest | undefined;
  let index: IndexCommit | undefined;
  const rounds = new Map<string, StoredRound>();
  /** Units with vectors of rounds stored without the index. */
  const unindexed = new Map<string, readonly StoredUnit[]>();
  const segments = new Map<string, Uint8Array>();
  const images = new Map<string, StoredImage>();
  const imagesOfRound = new Map<string, string[]>();

  const applyIndex = (change: IndexChange | undefined) => {
    if (!change) return;
    for (const segment of change.add) segments.set(segment.id, segment.bytes);
    index = change.commit;
    const named = new Set(change.commit.segments.map((segment) => segment.id));
    for (const id of segments.keys()) if (!named.has(id)) segments.delete(id);
  };
  const dropRound = (roundId: string) => {
    rounds.delete(roundId);
    unindexed.delete(roundId);
    for (const imageId of imagesOfRound.get(roundId) ?? []) images.delete(imageId);
    imagesOfRound.delete(roundId);
  };

  return {
    label: 'the in-memory memory',
    async readManifest() {
      return manifest;
    },
    async writeManifest(next) {
      manifest = next;
    },
    async open() {
      const ordered = [...rounds.values()].sort((a, b) => a.seq - b.seq);
      return { rounds: ordered.map(roundFacts), index, unindexed: ordered.filter((round) => unindexed.has(round.id)).map((round) => round.id) };
    },
    async readSegments(ids) {
      // A copy: the caller may transfer what it gets (see `MemoryStorage.readSegments`).
      return ids.map((id) => segments.get(id)?.slice());
    },
    async readUnits(roundIds) {
      return roundIds.flatMap((id) => unindexed.get(id) ?? []);
    },
    async getRounds(roundIds) {
      return roundIds.map((id) => rounds.get(id));
    },
    async putRounds(records: readonly RoundRecord[], change?: IndexChange) {
      assertStorablePictures(records);
      for (const record of records) {
        for (const imageId of imagesOfRound.get(record.round.id) ?? []) images.delete(imageId);
        rounds.set(record.round.id, record.round);
        if (change) unindexed.delete(record.round.id);
        else unindexed.set(record.round.id, [...record.units]);
        for (const image of record.images) images.set(image.id, image);
        imagesOfRound.set(record.round.id, record.images.map((image) => image.id));
      }
      applyIndex(change);
    },
    async deleteRounds(roundIds, change) {
      for (const roundId of roundIds) dropRound(roundId);
      applyIndex(change);
    },
    async writeIndex(change, indexed = []) {
      applyIndex(change);
      for (const id of indexed) unindexed.delete(id);
    },
    async getImage(imageId) {
      return images.get(imageId);
    },
    async clear() {
      manifest = undefined;
      index = undefined;
      rounds.clear();
      unindexed.clear();
      segments.clear();
      images.clear();
      imagesOfRound.clear();
    },
    async close() {},
  };
}
