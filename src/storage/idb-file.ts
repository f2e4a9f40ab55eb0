/**
 * A memory as one file: manifest, rounds, units with their vectors, and image bytes, so importing
 * it re-encodes nothing (the memory reads its contents whole, `memoryContents`, and this encodes them;
 * an import stores the rounds with their vectors, and the memory indexes them when it opens).
 *
 * Layout: 8-byte magic `VMEMFILE`, u32 format version, u32 header length (little-endian), the
 * header as UTF-8 JSON, then the payload: every vector's float32 bytes and every image's bytes,
 * at the offsets the header gives (relative to the payload start).
 */
import { VmemError, isVmemError } from '../errors.js';
import type { StoredUnit } from '../types.js';
import { createIdbStorage, deleteMemory } from './idb.js';
import { checkFileHeader, type FileHeader, type Slice } from './memory-file-check.js';
import { assertStorablePictures } from './picture-check.js';
import { sealStorage } from './encrypted-storage.js';
import { isSealedMemoryFile, openMemoryFile } from './sealed-file.js';
import type { Unlock } from './sealer.js';
import type { MemorySnapshot, MemoryStorage, RoundRecord, StoredImage } from './types.js';

const MAGIC = 'VMEMFILE';
const FORMAT_VERSION = 1;
const PREAMBLE_BYTES = 16;
/** Rounds written per transaction on import; bounds the size of one transaction. */
const IMPORT_BATCH = 500;

/** Encodes a snapshot into the file layout described at the top of this module. */
export function encodeMemoryFile(snapshot: MemorySnapshot): Blob {
  const parts: BlobPart[] = [];
  let offset = 0;
  const place = (bytes: Uint8Array): Slice => {
    parts.push(bytes as Uint8Array<ArrayBuffer>);
    const slice = { offset, length: bytes.byteLength };
    offset += bytes.byteLength;
    return slice;
  };
  const header: FileHeader = {
    manifest: snapshot.manifest,
    counts: { rounds: snapshot.rounds.length, units: snapshot.units.length, images: snapshot.images.length },
    rounds: snapshot.rounds,
    units: snapshot.units.map(({ vector, ...unit }) => ({
      ...unit,
      vector: place(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)),
    })),
    images: snapshot.images.map((image) => ({ id: image.id, roundId: image.roundId, mimeType: image.mimeType, bytes: place(image.bytes) })),
  };
  const headerBytes = new globalThis.TextEncoder().encode(JSON.stringify(header));
  const preamble = new Uint8Array(PREAMBLE_BYTES);
  preamble.set(new globalThis.TextEncoder().encode(MAGIC), 0);
  const view = new DataView(preamble.buffer);
  view.setUint32(8, FORMAT_VERSION, true);
  view.setUint32(12, headerBytes.byteLength, true);
  return new Blob([preamble, headerBytes, ...parts], { type: 'application/vnd.vmem' });
}

/** Decodes a memory file; rejects with `INVALID_INPUT` for anything else. */
export function decodeMemoryFile(bytes: Uint8Array): MemorySnapshot {
  const notAMemory = (why: string) => new VmemError('INVALID_INPUT', `This file is not a vmem memory export (${why}); choose a file made by "Export".`);
  if (bytes.byteLength < PREAMBLE_BYTES || new globalThis.TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw notAMemory('no VMEMFILE signature');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== FORMAT_VERSION) throw notAMemory(`format version ${version}, this app reads ${FORMAT_VERSION}`);
  const headerLength = view.getUint32(12, true);
  const payloadStart = PREAMBLE_BYTES + headerLength;
  if (payloadStart > bytes.byteLength) throw notAMemory('truncated header');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new globalThis.TextDecoder().decode(bytes.subarray(PREAMBLE_BYTES, payloadStart)));
  } catch (error) {
    throw new VmemError('INVALID_INPUT', 'The memory file header is damaged (invalid JSON); export the memory again.', { cause: error });
  }
  const header = checkFileHeader(parsed, bytes.byteLength - payloadStart);
  const take = (slice: Slice): Uint8Array => {
    const start = payloadStart + slice.offset;
    if (slice.offset < 0 || start + slice.length > bytes.byteLength) throw notAMemory('truncated payload');
    // A copy, so each value owns an aligned buffer of exactly its size.
    return bytes.slice(start, start + slice.length);
  };
  return {
    manifest: header.manifest,
    rounds: header.rounds,
    units: header.units.map(({ vector, ...unit }) => ({ ...unit, vector: new Float32Array(take(vector).buffer) })),
    images: header.images.map((image) => ({ id: image.id, roundId: image.roundId, mimeType: image.mimeType, bytes: take(image.bytes) })),
  };
}

/**
 * Creates the memory `name` from an exported file. Rejects with `MEMORY_EXISTS` when the name is
 * taken (checked and created in one step, so two tabs cannot both import it). If writing
 * fails part-way, the new memory is deleted again so no half-imported memory is left behind.
 * @example
 * await importMemory('alice-copy', file);
 * const memory = await createMemory({ textEncoder, imageEncoder, storage: await createIdbStorage('alice-copy') });
 */
export async function importMemory(name: string, file: Blob, encryption?: Unlock): Promise<void> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const snapshot = decodeMemoryFile(isSealedMemoryFile(bytes) ? await openMemoryFile(bytes, encryption) : bytes);
  const records = groupByRound(snapshot);
  // The whole file is checked before the memory exists, so a refused file leaves nothing behind.
  assertStorablePictures(records);
  const created = await createIdbStorage(name, { createNew: true });
  let storage: MemoryStorage = created;
  try {
    if (encryption) storage = await sealStorage(created, encryption);
    await storage.writeManifest(snapshot.manifest);
    for (let start = 0; start < records.length; start += IMPORT_BATCH) {
      await storage.putRounds(records.slice(start, start + IMPORT_BATCH));
    }
    await storage.close();
  } catch (error) {
    await storage.close();
    await deleteMemory(name);
    throw isVmemError(error) ? error : new VmemError('STORAGE_FAILED', `Importing memory "${name}" failed: ${String(error)}`, { cause: error });
  }
}

function groupByRound(snapshot: MemorySnapshot): RoundRecord[] {
  const unitsByRound = new Map<string, StoredUnit[]>();
  for (const unit of snapshot.units) {
    const list = unitsByRound.get(unit.roundId) ?? [];
    list.push(unit);
    unitsByRound.set(unit.roundId, list);
  }
  const imagesByRound = new Map<string, StoredImage[]>();
  for (const { roundId, ...image } of snapshot.images) {
    const list = imagesByRound.get(roundId) ?? [];
    list.push(image);
    imagesByRound.set(roundId, list);
  }
  return snapshot.rounds.map((round) => ({
    round,
    units: unitsByRound.get(round.id) ?? [],
    images: imagesByRound.get(round.id) ?? [],
  }));
}
