/**
 * How IndexedDB keeps rounds that are not in the index yet (database layout 3, written by vmem before
 * index segments, and by `.vmem` imports): a chunk record holds up to `CHUNK_ROUNDS` rounds, their
 * units' facts, and all their vectors packed in one Blob of float32s. The memory indexes such rounds
 * when it opens and moves them to layout 4's stores (see idb.ts).
 *
 * A Blob (layout 2 held a Float32Array) because IndexedDB hands back a stored Blob as a handle at
 * once: cutting a round out of a chunk joins Blob slices synchronously, inside one write transaction,
 * without reading any vector.
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
  /** Every unit's vector, one after the other, as float32 bytes (layout 2 stored a Float32Array). */
  readonly vectors: Blob | Float32Array;
}

export interface RoundWithUnits {
  readonly round: StoredRound;
  readonly units: readonly StoredUnit[];
}

/** A round as a chunk holds it: facts, vector lengths, and its vectors' bytes (a Blob slice, not read). */
interface PackedRound {
  readonly round: StoredRound;
  readonly units: readonly UnitFacts[];
  readonly lengths: readonly number[];
  readonly bytes: Blob;
}

/** Packs rounds with their units into one chunk (vectors copied once, into one Blob). */
export function packChunk(items: readonly RoundWithUnits[], key?: number): RoundChunk {
  return joinRounds(
    items.map(({ round, units }) => ({
      round,
      units: units.map(({ vector: _vector, ...facts }) => facts),
      lengths: units.map((unit) => unit.vector.length),
      bytes: new Blob(units.map((unit) => exactBytes(unit.vector))),
    })),
    key,
  );
}

/** Every float of a chunk's vectors, in unit order. */
export async function chunkFloats(chunk: RoundChunk): Promise<Float32Array> {
  if (chunk.vectors instanceof Float32Array) return chunk.vectors;
  const expected = chunk.lengths.reduce((sum, length) => sum + length, 0);
  const buffer = await chunk.vectors.arrayBuffer();
  if (buffer.byteLength !== expected * 4) {
    throw new RangeError(`a stored chunk holds ${buffer.byteLength} bytes of vectors, its units need ${expected * 4}`);
  }
  return new Float32Array(buffer);
}

/** The chunk without the given rounds (same key), or undefined when none is left. Reads no vectors. */
export function withoutRounds(chunk: RoundChunk, roundIds: ReadonlySet<string>): RoundChunk | undefined {
  const kept = splitRounds(chunk).filter((item) => !roundIds.has(item.round.id));
  return kept.length === 0 ? undefined : joinRounds(kept, chunk.key);
}

/** Splits rounds into chunk-sized slices. */
export function slices<T>(items: readonly T[], size = CHUNK_ROUNDS): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

function splitRounds(chunk: RoundChunk): PackedRound[] {
  const blob = chunk.vectors instanceof Blob ? chunk.vectors : new Blob([exactBytes(chunk.vectors)]);
  let unitAt = 0;
  let byteAt = 0;
  return chunk.rounds.map((round, index) => {
    const count = chunk.unitCounts[index]!;
    const lengths = chunk.lengths.slice(unitAt, unitAt + count);
    const bytes = lengths.reduce((sum, length) => sum + length * 4, 0);
    const packed = { round, units: chunk.units.slice(unitAt, unitAt + count), lengths, bytes: blob.slice(byteAt, byteAt + bytes) };
    unitAt += count;
    byteAt += bytes;
    return packed;
  });
}

function joinRounds(items: readonly PackedRound[], key?: number): RoundChunk {
  return {
    ...(key === undefined ? {} : { key }),
    roundIds: items.map((item) => item.round.id),
    rounds: items.map((item) => item.round),
    unitCounts: items.map((item) => item.units.length),
    units: items.flatMap((item) => item.units),
    lengths: items.flatMap((item) => item.lengths),
    vectors: new Blob(items.map((item) => item.bytes)),
  };
}

/** Exactly a vector's bytes (a view's whole buffer would otherwise go in). */
function exactBytes(vector: Float32Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(vector.buffer as ArrayBuffer, vector.byteOffset, vector.byteLength);
}

/** The units (vectors included) of the chunk's rounds among `roundIds`. */
export async function unitsOfRounds(chunk: RoundChunk, roundIds: ReadonlySet<string>): Promise<StoredUnit[]> {
  const floats = await chunkFloats(chunk);
  const out: StoredUnit[] = [];
  let unitAt = 0;
  let floatAt = 0;
  chunk.rounds.forEach((round, index) => {
    for (let n = 0; n < chunk.unitCounts[index]!; n++) {
      const length = chunk.lengths[unitAt]!;
      if (roundIds.has(round.id)) out.push({ ...chunk.units[unitAt]!, vector: floats.slice(floatAt, floatAt + length) });
      unitAt++;
      floatAt += length;
    }
  });
  return out;
}

/** A layout-2 chunk (vectors in a Float32Array) in layout 3 (vectors in a Blob). */
export function withBlobVectors(chunk: RoundChunk): RoundChunk {
  return chunk.vectors instanceof Float32Array ? { ...chunk, vectors: new Blob([exactBytes(chunk.vectors)]) } : chunk;
}
