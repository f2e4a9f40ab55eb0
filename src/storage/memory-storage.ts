import type { StoredRound, StoredUnit } from '../types.js';
import type { Manifest, MemoryStorage, RoundRecord, StoredImage } from './types.js';
import { assertStorablePictures } from './picture-check.js';

/**
 * Storage that lives and dies with the process: for Node, tests and benchmarks.
 * @example const memory = await createMemory({ textEncoder, storage: createInMemoryStorage() });
 */
export function createInMemoryStorage(): MemoryStorage {
  let manifest: Manifest | undefined;
  const rounds = new Map<string, StoredRound>();
  const units = new Map<string, StoredUnit[]>();
  const images = new Map<string, StoredImage>();
  const imagesOfRound = new Map<string, string[]>();

  return {
    async readManifest() {
      return manifest;
    },
    async writeManifest(next) {
      manifest = next;
    },
    async loadAll() {
      const ordered = [...rounds.values()].sort((a, b) => a.seq - b.seq);
      return { rounds: ordered, units: ordered.flatMap((round) => units.get(round.id) ?? []) };
    },
    async putRounds(records: readonly RoundRecord[]) {
      assertStorablePictures(records);
      for (const record of records) {
        rounds.set(record.round.id, record.round);
        units.set(record.round.id, [...record.units]);
        for (const image of record.images) images.set(image.id, image);
        imagesOfRound.set(record.round.id, record.images.map((image) => image.id));
      }
    },
    async deleteRound(roundId) {
      rounds.delete(roundId);
      units.delete(roundId);
      for (const imageId of imagesOfRound.get(roundId) ?? []) images.delete(imageId);
      imagesOfRound.delete(roundId);
    },
    async getImage(imageId) {
      return images.get(imageId);
    },
    async clear() {
      manifest = undefined;
      rounds.clear();
      units.clear();
      images.clear();
      imagesOfRound.clear();
    },
    async close() {},
  };
}
