/**
 * How IndexedDB keeps rounds (database layout 3): a chunk record holds up to `CHUNK_ROUNDS` rounds,
 * their units' facts, and all their vectors packed in one Blob of float32s. Opening a memory reads
 * a few dozen records instead of one per unit (IndexedDB's cost is mostly per record: 5k rounds read
 * in ~0.5 s as 10 chunks, ~3 s as 5k records, on the benchmark machine).
 *
 * Why a Blob (layout 2 held a Float32Array): IndexedDB hands back a stored Blob as a handle at once
 * and reads its bytes asynchronously when asked, off the main thread, while a large typed array is
 * read and copied before the record is delivered. Opening a memory therefore gets the rounds' texts
 * first and builds the text index while the vector bytes are still arriving (see
 * `loadStaged`). Rewriting a chunk (forgetting a round, compacting) cuts and joins Blob slices,
 * which is synchronous, so it still happens inside one write transaction without reading vectors.
 */
import type { StoredRound, StoredUnit } from '../types.js';
import type { StagedLoad } from './types.js';

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

/** Chunks holding the rounds of `chunks` in seq order, at most `CHUNK_ROUNDS` each. Reads no vectors. */
export function mergeChunks(chunks: readonly RoundChunk[]): RoundChunk[] {
  const rounds = chunks.flatMap(splitRounds).sort((a, b) => a.round.seq - b.round.seq);
  return slices(rounds).map((slice) => joinRounds(slice));
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

/** Rounds in seq order with their units' facts now; the vectors once every chunk's bytes are read. */
export function stageChunks(chunks: readonly RoundChunk[]): StagedLoad {
  const floats = Promise.all(chunks.map(chunkFloats));
  const order: { chunk: number; round: number; seq: number }[] = [];
  const firstUnit: number[][] = [];
  const firstFloat: number[][] = [];
  chunks.forEach((chunk, c) => {
    const units: number[] = [];
    const offsets: number[] = [];
    let unitAt = 0;
    let floatAt = 0;
    chunk.rounds.forEach((round, r) => {
      order.push({ chunk: c, round: r, seq: round.seq });
      units.push(unitAt);
      offsets.push(floatAt);
      for (let n = 0; n < chunk.unitCounts[r]!; n++) floatAt += chunk.lengths[unitAt + n]!;
      unitAt += chunk.unitCounts[r]!;
    });
    firstUnit.push(units);
    firstFloat.push(offsets);
  });
  order.sort((a, b) => a.seq - b.seq);
  const rounds: StoredRound[] = [];
  const units: UnitFacts[] = [];
  for (const { chunk, round } of order) {
    const source = chunks[chunk]!;
    rounds.push(source.rounds[round]!);
    const start = firstUnit[chunk]![round]!;
    for (let n = 0; n < source.unitCounts[round]!; n++) units.push(source.units[start + n]!);
  }
  const vectors = floats.then((all) => {
    const out: Float32Array[] = [];
    for (const { chunk, round } of order) {
      const source = chunks[chunk]!;
      const start = firstUnit[chunk]![round]!;
      let at = firstFloat[chunk]![round]!;
      for (let n = 0; n < source.unitCounts[round]!; n++) {
        const length = source.lengths[start + n]!;
        out.push(all[chunk]!.subarray(at, at + length));
        at += length;
      }
    }
    return out;
  });
  return { rounds, units, vectors };
}

/** A layout-2 chunk (vectors in a Float32Array) in layout 3 (vectors in a Blob). */
export function withBlobVectors(chunk: RoundChunk): RoundChunk {
  return chunk.vectors instanceof Float32Array ? { ...chunk, vectors: new Blob([exactBytes(chunk.vectors)]) } : chunk;
}
