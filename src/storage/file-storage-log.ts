/**
 * The file store's round log: an append-only file of frames, each `[magic, kind, length, crc32]`
 * then its payload. A frame is the unit of atomicity: a crash can only leave a torn frame at the
 * end, whose checksum or length gives it away; replaying stops before it, so a write is in the log
 * whole or not at all. Image bytes and index segments live in their own files (see
 * file-storage.ts); a frame records each image's file, size and checksum, and names the segments.
 *
 * Frame kinds:
 * - `rounds` (3): rounds and, when the write changes the index, the commit after it. The payload is a
 *   small JSON header (each round's facts, images, and where its body is) followed by each round's
 *   body as JSON, so opening parses the headers only and reads a body when asked.
 * - `delete` (4): round ids to remove, and the commit after it.
 * - `put` (1) and `drop` (2): what vmem wrote before index segments (rounds with their units' float32
 *   vectors, and removals). Still read: their rounds are indexed when the memory opens.
 */
import * as zlib from 'node:zlib';
import { VmemError } from '../errors.js';
import type { StoredRound, StoredUnit } from '../types.js';
import { roundFacts, type IndexCommit, type RoundFacts } from './types.js';

const FRAME_MAGIC = 0x564d4652; // "VMFR"
/** Bytes before each frame's payload: magic, kind (+3 spare), payload length, payload crc32. */
export const FRAME_HEADER_BYTES = 16;
const KIND_PUT = 1;
const KIND_DROP = 2;
const KIND_ROUNDS = 3;
const KIND_DELETE = 4;

/** An image as a frame records it; the bytes are in `file` under the store's `images/` folder. */
export interface ImageEntry {
  readonly id: string;
  readonly mimeType: string;
  readonly file: string;
  readonly size: number;
  readonly crc: number;
}

/** Where a round's body is: a byte range of the log file. */
export interface BodyRange {
  readonly offset: number;
  readonly length: number;
}

/** One round as the log holds it: its facts and images, and its body (a range of the log, or the round itself from a `put` frame). */
export interface LoggedRound {
  readonly facts: RoundFacts;
  readonly images: readonly ImageEntry[];
  readonly body: BodyRange | StoredRound;
  /** Units with vectors, for a round from a `put` frame (not indexed yet). */
  readonly units?: readonly StoredUnit[];
}

/** What replaying a log gives: the live rounds by id, the last commit, and where the good frames end. */
export interface Replay {
  readonly rounds: Map<string, LoggedRound>;
  readonly commit: IndexCommit | undefined;
  /** Bytes of frames whose rounds were later replaced or deleted (what compacting would save). */
  readonly deadBytes: number;
  /** End of the last whole frame; anything after it is a torn write. */
  readonly goodBytes: number;
}

/** A round for a `rounds` frame. */
export interface RoundToLog {
  readonly round: StoredRound;
  readonly facts: RoundFacts;
  readonly images: readonly ImageEntry[];
}

interface RoundsHeader {
  readonly rounds: readonly { readonly facts: RoundFacts; readonly images: readonly ImageEntry[]; readonly body: readonly [number, number] }[];
  readonly commit?: IndexCommit;
}

/** The frame of one write: its rounds (bodies after a header) and the commit after it. */
export function roundsFrame(rounds: readonly RoundToLog[], commit: IndexCommit | undefined): Buffer {
  const bodies = rounds.map((item) => Buffer.from(JSON.stringify(item.round)));
  let offset = 0;
  const header: RoundsHeader = {
    rounds: rounds.map((item, at) => {
      const body = [offset, bodies[at]!.length] as const;
      offset += bodies[at]!.length;
      return { facts: item.facts, images: item.images, body };
    }),
    ...(commit ? { commit } : {}),
  };
  const text = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(text.length, 0);
  return frame(KIND_ROUNDS, Buffer.concat([head, text, ...bodies]));
}

/** The frame that removes `roundIds`, with the commit after it. */
export function deleteFrame(roundIds: readonly string[], commit: IndexCommit | undefined): Buffer {
  return frame(KIND_DELETE, Buffer.from(JSON.stringify({ roundIds, ...(commit ? { commit } : {}) })));
}

/** A `put` frame (rounds with their units' vectors, not indexed): what an older vmem wrote, and still what a write without an index change writes. */
export function putFrame(records: readonly { round: StoredRound; units: readonly StoredUnit[]; images: readonly ImageEntry[] }[]): Buffer {
  const vectors: Float32Array[] = [];
  const json = JSON.stringify(
    records.map(({ round, units, images }) => ({
      round,
      units: units.map(({ vector, ...facts }) => {
        vectors.push(vector);
        return facts;
      }),
      dims: units.map((unit) => unit.vector.length),
      images,
    })),
  );
  // Padding the JSON to 4 bytes keeps the float32s aligned inside the payload.
  const text = Buffer.from(json + ' '.repeat((4 - (Buffer.byteLength(json) % 4)) % 4));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(text.length, 0);
  // Float32Arrays are little-endian on every platform Node runs on, which is what replay reads.
  const floats = vectors.map((vector) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
  return frame(KIND_PUT, Buffer.concat([head, text, ...floats]));
}

function frame(kind: number, payload: Buffer): Buffer {
  if (payload.length > 0xffff_ffff) throw new VmemError('STORAGE_FAILED', 'One write of more than 4 GiB of rounds cannot be stored atomically; add fewer rounds per call.');
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.writeUInt32LE(FRAME_MAGIC, 0);
  header.writeUInt8(kind, 4);
  header.writeUInt32LE(payload.length, 8);
  header.writeUInt32LE(crc32(payload), 12);
  return Buffer.concat([header, payload]);
}

/**
 * Replays a log's bytes. A torn last frame (cut short, or whose checksum fails and which ends the
 * file) is left out and reported through `goodBytes`; a damaged frame with whole frames after it
 * cannot come from a crash, so it rejects with `STORAGE_FAILED`.
 * @param base where `bytes` start in the log file: body ranges are file offsets
 */
export function replayLog(bytes: Buffer, path: string, base = 0): Replay {
  const rounds = new Map<string, LoggedRound>();
  const frameShare = new Map<string, number>();
  let commit: IndexCommit | undefined;
  let deadBytes = 0;
  let at = 0;
  const retire = (roundId: string) => {
    deadBytes += frameShare.get(roundId) ?? 0;
    frameShare.delete(roundId);
    rounds.delete(roundId);
  };
  const keep = (roundId: string, logged: LoggedRound, share: number) => {
    retire(roundId);
    rounds.set(roundId, logged);
    frameShare.set(roundId, share);
  };
  while (at < bytes.length) {
    if (bytes.length - at < FRAME_HEADER_BYTES) break;
    const length = bytes.readUInt32LE(at + 8);
    const end = at + FRAME_HEADER_BYTES + length;
    if (end > bytes.length) break;
    const payload = bytes.subarray(at + FRAME_HEADER_BYTES, end);
    if (bytes.readUInt32LE(at) !== FRAME_MAGIC || crc32(payload) !== bytes.readUInt32LE(at + 12)) {
      // A crash leaves a torn last frame, or (after a power cut) a tail of zeros where it was going.
      if (end === bytes.length || bytes.subarray(at).every((byte) => byte === 0)) break;
      throw new VmemError(
        'STORAGE_FAILED',
        `The memory log ${path} is damaged at byte ${at} (a frame fails its checksum and more follow), which a crash cannot cause. ` +
          'Restore the folder from a backup; the rounds before that byte can be recovered by truncating the file there.',
      );
    }
    const kind = bytes.readUInt8(at + 4);
    const payloadAt = base + at + FRAME_HEADER_BYTES;
    if (kind === KIND_ROUNDS) {
      const headerLength = payload.readUInt32LE(0);
      const header = JSON.parse(payload.toString('utf8', 4, 4 + headerLength)) as RoundsHeader;
      const bodiesAt = payloadAt + 4 + headerLength;
      const share = header.rounds.length > 0 ? (end - at) / header.rounds.length : 0;
      if (header.rounds.length === 0) deadBytes += end - at;
      for (const { facts, images, body } of header.rounds) keep(facts.id, { facts, images, body: { offset: bodiesAt + body[0], length: body[1] } }, share);
      if (header.commit) commit = header.commit;
    } else if (kind === KIND_PUT) {
      const records = readPut(payload);
      const share = (end - at) / records.length;
      for (const record of records) keep(record.round.id, { facts: roundFacts(record.round), images: record.images, body: record.round, units: record.units }, share);
    } else if (kind === KIND_DELETE || kind === KIND_DROP) {
      deadBytes += end - at;
      const parsed = JSON.parse(payload.toString('utf8')) as string[] | { roundIds: string[]; commit?: IndexCommit };
      const roundIds = Array.isArray(parsed) ? parsed : parsed.roundIds;
      for (const roundId of roundIds) retire(roundId);
      if (!Array.isArray(parsed) && parsed.commit) commit = parsed.commit;
    } else {
      throw new VmemError('STORAGE_FAILED', `The memory log ${path} holds a frame of unknown kind ${kind}; it was written by a newer vmem. Upgrade vmem to open it.`);
    }
    at = end;
  }
  return { rounds, commit, deadBytes, goodBytes: at };
}

interface PutRecordJson {
  readonly round: StoredRound;
  readonly units: Omit<StoredUnit, 'vector'>[];
  readonly dims: number[];
  readonly images: ImageEntry[];
}

function readPut(payload: Buffer): { round: StoredRound; units: StoredUnit[]; images: ImageEntry[] }[] {
  const textLength = payload.readUInt32LE(0);
  const records = JSON.parse(payload.toString('utf8', 4, 4 + textLength)) as PutRecordJson[];
  // One copy of the frame's float32s (the payload's own alignment is not guaranteed); vectors view it.
  const floatBytes = payload.subarray(4 + textLength);
  const floats = new Float32Array(floatBytes.length / 4);
  new Uint8Array(floats.buffer).set(floatBytes);
  let floatAt = 0;
  return records.map(({ round, units, dims, images }) => ({
    round,
    images,
    units: units.map((facts, index) => {
      const vector = floats.subarray(floatAt, floatAt + dims[index]!);
      floatAt += dims[index]!;
      return { ...facts, vector };
    }),
  }));
}

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32 (the zlib polynomial) by table lookup: for Nodes before 20.15, which lack `zlib.crc32`. */
export function crc32Table(bytes: Uint8Array): number {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** CRC-32 of `bytes`: natively where Node has it (about 10× faster, which opening a large log feels). */
export const crc32: (bytes: Uint8Array) => number = (zlib as { crc32?: (data: Uint8Array) => number }).crc32 ?? crc32Table;
