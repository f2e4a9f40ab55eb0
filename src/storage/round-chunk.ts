/**
 * How IndexedDB keeps rounds (database layout 2): a chunk record holds up to `CHUNK_ROUNDS` rounds,
 * their units' facts, and all their vectors packed in one Float32Array. Opening a memory reads a
 * few dozen records instead of one per unit (IndexedDB's cost is mostly per record: 5k rounds read
 * in ~0.5 s as 10 chunks, ~3 s as 5k records, on the benchmark machine), and the vectors come back
 * as views into each chunk's buffer, with no copies.
 */
import type { StoredRound, StoredUnit } from '../types.js';

/** Most rounds in one chunk: big enough to make records few, small enough that forgetting one round rewrites ~1 MB at most. */
export const CHUNK_ROUNDS = 256;

export type UnitFacts = Omit<StoredUnit, 'vector'>;

/** The stored record; `key` is assigned by IndexedDB, `roundIds` is indexed (multi-entry) to find a round's chunk. */
export interface RoundChunk {
  readonly key?: number;
  readonly roundIds: readonly string[];
  readonly rounds: readonly StoredRound[];
  /** Units of each round, in round order. */
  readonly unitCounts: readonly number[];
  readonly units: readonly UnitFacts[];
  /** Floats in each unit's vector, in unit order. */
  readonly lengths: readonly number[];
  /** Every unit's vector, one after the other. */
  readonly vectors: Float32Array;
}

export interface RoundWithUnits {
  readonly round: StoredRound;
  readonly units: readonly StoredUnit[];
}

/** Packs rounds with their units into one chunk (vectors copied once, into one buffer). */
export function packChunk(items: readonly RoundWithUnits[], key?: number): RoundChunk {
  const all = items.flatMap((item) => item.units);
  const lengths = all.map((unit) => unit.vector.length);
  const vectors = new Float32Array(lengths.reduce((sum, length) => sum + length, 0));
  let offset = 0;
  const units = all.map(({ vector, ...unit }) => {
    vectors.set(vector, offset);
    offset += vector.length;
    return unit;
  });
  return {
    ...(key === undefined ? {} : { key }),
    roundIds: items.map((item) => item.round.id),
    rounds: items.map((item) => item.round),
    unitCounts: items.map((item) => item.units.length),
    units,
    lengths,
    vectors,
  };
}

/** The rounds of a chunk with their units; each vector is a view into the chunk's buffer. */
export function unpackChunk(chunk: RoundChunk): RoundWithUnits[] {
  const { buffer, byteOffset } = chunk.vectors;
  let unitAt = 0;
  let floatAt = 0;
  return chunk.rounds.map((round, index) => {
    const units: StoredUnit[] = [];
    for (let n = 0; n < chunk.unitCounts[index]!; n++, unitAt++) {
      const length = chunk.lengths[unitAt]!;
      units.push({ ...chunk.units[unitAt]!, vector: new Float32Array(buffer, byteOffset + floatAt * 4, length) });
      floatAt += length;
    }
    return { round, units };
  });
}

/** The chunk without the given rounds (same key), or undefined when none is left. */
export function withoutRounds(chunk: RoundChunk, roundIds: ReadonlySet<string>): RoundChunk | undefined {
  const kept = unpackChunk(chunk).filter((item) => !roundIds.has(item.round.id));
  return kept.length === 0 ? undefined : packChunk(kept, chunk.key);
}

/** Splits rounds into chunk-sized slices. */
export function slices<T>(items: readonly T[], size = CHUNK_ROUNDS): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}
