/**
 * A memory kept in a folder on disk, for Node (agents, the MCP server, scripts):
 *
 * - `rounds.log`: the append-only round log (see file-storage-log.ts): every write is one
 *   checksummed frame (rounds, removals, and the index commit that goes with them), so a crash keeps
 *   or loses the whole write, never part of a round.
 * - `segments/`: the index's segments, one file each, named by the SHA-256 of their bytes.
 * - `images/`: one file per image.
 *   Segment and image files are written aside and renamed into place before the frame that refers to
 *   them, so a committed frame never points at a missing or half-written file. Files no committed
 *   frame refers to (left by a crash, or dropped by a later commit) are removed on open.
 * - `manifest.json`: the encoders that built the memory, replaced atomically (temp file + rename).
 * - `LOCK`: the one process allowed to write (see file-storage-lock.ts).
 *
 * Opening replays the log's headers (the rounds' facts, not their bodies, which are read from the
 * log when asked for) and hands the segments to the memory, so nothing is tokenized or re-encoded.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { VmemError, isVmemError } from '../errors.js';
import type { StoredRound } from '../types.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { crc32, deleteFrame, putFrame, replayLog, roundsFrame, type ImageEntry, type LoggedRound, type Replay } from './file-storage-log.js';
import { acquireWriterLock, isCode, LOCK_FILE, type WriterLock } from './file-storage-lock.js';
import { roundFacts, type IndexChange, type IndexCommit, type Manifest, type MemoryStorage, type RoundRecord, type StorageState, type StoredImage } from './types.js';
import { assertStorablePictures } from './picture-check.js';
import { sealStorageKeeping, type EncryptedStorageControls } from './encrypted-storage.js';
import type { Unlock } from './sealer.js';

const LOG_FILE = 'rounds.log';
const MANIFEST_FILE = 'manifest.json';
const IMAGES_DIR = 'images';
const SEGMENTS_DIR = 'segments';
const TEMP_SUFFIX = '.tmp';
/** Names this store writes, and only these are ever deleted: image and segment files, and temporary files. */
const IMAGE_FILE = /^[0-9a-f]{32}-[0-9a-f]{8}-\d+(\.\d+\.tmp)?$/;
const SEGMENT_FILE = /^[0-9a-f]{64}(\.\d+\.tmp)?$/;
const ROOT_TEMP_FILE = /^(rounds\.log|manifest\.json)\.\d+\.tmp$/;
/** Rounds per frame when the log is rewritten compactly. */
const COMPACT_FRAME_ROUNDS = 256;
/** Opening rewrites the log when replaced and deleted rounds take more room than this and than the live ones. */
const COMPACT_MIN_DEAD_BYTES = 1 << 20;
const APPEND_SLICE_BYTES = 16 << 20;

/** `MemoryStorage` in a folder; see `createFileStorage`. */
export interface FileMemoryStorage extends MemoryStorage {
  /** The folder, as an absolute path. */
  readonly dir: string;
}

/** Options of `createFileStorage`. */
export interface FileStorageOptions {
  /**
   * Encrypts everything stored (docs/security.md): a new folder is locked with this passphrase (or
   * the app's AES-GCM `CryptoKey`); an encrypted one opens only with it. A wrong one rejects with
   * `WRONG_PASSPHRASE` and changes nothing; an encrypted folder opened without one rejects with
   * `PASSPHRASE_REQUIRED` when the memory opens.
   * @default none (stored as it is)
   */
  readonly encryption?: Unlock;
}

/**
 * Opens (creating if needed) a memory folder for writing. Each write is stored whole or not at all,
 * even if the process is killed mid-write; a torn write is dropped on the next open. A second
 * writer, in another process or this one, is refused with `MEMORY_LOCKED` until this one calls
 * `close()` (a lock left by a process that died is taken over). Disk-full errors reject with
 * `QUOTA_EXCEEDED`, other I/O errors and damage a crash cannot cause with `STORAGE_FAILED`.
 * @example
 * const memory = await createMemory({ textEncoder, imageEncoder, storage: await createFileStorage('./my-memory') });
 */
export async function createFileStorage(dir: string, options: FileStorageOptions & { encryption: Unlock }): Promise<FileMemoryStorage & EncryptedStorageControls>;
export async function createFileStorage(dir: string, options?: FileStorageOptions): Promise<FileMemoryStorage>;
export async function createFileStorage(dir: string, options: FileStorageOptions = {}): Promise<FileMemoryStorage> {
  if (typeof dir !== 'string' || dir.trim() === '') throw new VmemError('INVALID_INPUT', 'createFileStorage needs the path of a folder, e.g. "./my-memory".');
  const root = resolve(dir);
  await assertMemoryFolder(root);
  await io(`creating ${root}`, async () => {
    await mkdir(join(root, IMAGES_DIR), { recursive: true });
    await mkdir(join(root, SEGMENTS_DIR), { recursive: true });
  });
  const lock = await acquireWriterLock(root);
  let storage: FileStorage;
  try {
    const { replay, size } = await openLog(root);
    const log = await io(`opening ${join(root, LOG_FILE)}`, () => open(join(root, LOG_FILE), 'r+'));
    storage = new FileStorage(root, lock, log, size, replay);
  } catch (error) {
    await lock.release();
    throw error;
  }
  return options.encryption ? sealStorageKeeping(storage, options.encryption, ['dir']) : storage;
}

/**
 * Rewrites the folder's log with its live rounds only, so the bytes of replaced and deleted rounds
 * leave the file (after an encryption in place, the plain rounds). Takes the writer lock.
 */
export async function compactMemoryFolder(dir: string): Promise<void> {
  const root = resolve(dir);
  const lock = await acquireWriterLock(root);
  try {
    await openLog(root, true);
  } finally {
    await lock.release();
  }
}

/** Replays the log, cuts off a torn tail, compacts when worthwhile (or `compact`), and removes what a crash left. */
async function openLog(root: string, compact = false): Promise<{ replay: Replay; size: number }> {
  const path = join(root, LOG_FILE);
  const bytes = await readFile(path).catch((error: unknown) => {
    if (isCode(error, 'ENOENT')) return Buffer.alloc(0);
    throw toStorageError(error, `reading ${path}`);
  });
  let replay = replayLog(bytes, path);
  let size = replay.goodBytes;
  if ((compact && replay.deadBytes > 0) || (replay.deadBytes > COMPACT_MIN_DEAD_BYTES && replay.deadBytes > size - replay.deadBytes)) {
    const compacted = await compactedLog(bytes, replay);
    await replaceFile(root, LOG_FILE, compacted);
    replay = replayLog(compacted, path);
    size = compacted.length;
  } else if (bytes.length === 0) {
    await io(`creating ${path}`, () => writeFile(path, ''));
  } else if (size < bytes.length) {
    const handle = await io(`repairing ${path}`, () => open(path, 'r+'));
    try {
      await io(`repairing ${path}`, async () => {
        await handle.truncate(size);
        await handle.sync();
      });
    } finally {
      await handle.close();
    }
  }
  await removeLeftovers(root, replay);
  return { replay, size };
}

/** The live rounds (in seq order) in fresh frames, the last one carrying the commit; rounds not indexed keep their vectors. */
async function compactedLog(bytes: Buffer, replay: Replay): Promise<Buffer> {
  const live = [...replay.rounds.values()].sort((a, b) => a.facts.seq - b.facts.seq);
  const frames: Buffer[] = [];
  const unindexed = live.filter((logged) => logged.units);
  for (let start = 0; start < unindexed.length; start += COMPACT_FRAME_ROUNDS) {
    frames.push(putFrame(unindexed.slice(start, start + COMPACT_FRAME_ROUNDS).map((logged) => ({ round: bodyOf(bytes, logged), units: logged.units!, images: logged.images }))));
  }
  const indexed = live.filter((logged) => !logged.units);
  for (let start = 0; start < indexed.length || start === 0; start += COMPACT_FRAME_ROUNDS) {
    const slice = indexed.slice(start, start + COMPACT_FRAME_ROUNDS);
    const last = start + COMPACT_FRAME_ROUNDS >= indexed.length;
    if (slice.length > 0 || (last && replay.commit)) frames.push(roundsFrame(slice.map((logged) => ({ round: bodyOf(bytes, logged), facts: logged.facts, images: logged.images })), last ? replay.commit : undefined));
  }
  return Buffer.concat(frames);
}

function bodyOf(bytes: Buffer, logged: LoggedRound): StoredRound {
  if (!('offset' in logged.body)) return logged.body;
  return JSON.parse(bytes.toString('utf8', logged.body.offset, logged.body.offset + logged.body.length)) as StoredRound;
}

/**
 * Refuses a folder that holds anything but a memory: opening deletes unreferenced files in
 * `images/` and `segments/`, which must never be someone's own files.
 */
async function assertMemoryFolder(root: string): Promise<void> {
  const names = await readdir(root).catch((error: unknown): string[] => {
    if (isCode(error, 'ENOENT')) return [];
    throw toStorageError(error, `reading ${root}`);
  });
  const ours = (name: string) =>
    name === LOG_FILE || name === MANIFEST_FILE || name === IMAGES_DIR || name === SEGMENTS_DIR || name.startsWith(LOCK_FILE) || ROOT_TEMP_FILE.test(name);
  const foreign = names.filter((name) => !ours(name));
  if (!names.includes(LOG_FILE) && foreign.length > 0) {
    throw new VmemError(
      'INVALID_INPUT',
      `${root} is not a vmem memory folder (it holds ${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}); give an empty or new folder.`,
    );
  }
}

/** Deletes image and segment files no live round or the commit refers to, and temporary files of writes that never finished. */
async function removeLeftovers(root: string, replay: Replay): Promise<void> {
  const referenced = new Set([...replay.rounds.values()].flatMap((logged) => logged.images.map((image) => image.file)));
  const imagesDir = join(root, IMAGES_DIR);
  for (const name of await io(`listing ${imagesDir}`, () => readdir(imagesDir))) {
    if (IMAGE_FILE.test(name) && !referenced.has(name)) await io(`removing ${name}`, () => rm(join(imagesDir, name), { force: true }));
  }
  const named = new Set(replay.commit?.segments.map((segment) => segment.id) ?? []);
  const segmentsDir = join(root, SEGMENTS_DIR);
  for (const name of await io(`listing ${segmentsDir}`, () => readdir(segmentsDir))) {
    if (SEGMENT_FILE.test(name) && !named.has(name)) await io(`removing ${name}`, () => rm(join(segmentsDir, name), { force: true }));
  }
  for (const name of await io(`listing ${root}`, () => readdir(root))) {
    if (ROOT_TEMP_FILE.test(name)) await io(`removing ${name}`, () => rm(join(root, name), { force: true }));
  }
}

class FileStorage implements FileMemoryStorage {
  readonly dir: string;
  readonly label: string;
  private readonly lock: WriterLock;
  private readonly log: FileHandle;
  private size: number;
  private readonly rounds: Map<string, LoggedRound>;
  private commit: IndexCommit | undefined;
  private readonly imageById = new Map<string, ImageEntry>();
  private readonly writes = createSerialQueue();
  private closed = false;

  constructor(dir: string, lock: WriterLock, log: FileHandle, size: number, replay: Replay) {
    this.dir = dir;
    this.label = `the memory folder ${dir}`;
    this.lock = lock;
    this.log = log;
    this.size = size;
    this.rounds = replay.rounds;
    this.commit = replay.commit;
    for (const logged of this.rounds.values()) for (const image of logged.images) this.imageById.set(image.id, image);
  }

  async readManifest(): Promise<Manifest | undefined> {
    this.assertOpen();
    const path = join(this.dir, MANIFEST_FILE);
    try {
      return JSON.parse(await readFile(path, 'utf8')) as Manifest;
    } catch (error) {
      if (isCode(error, 'ENOENT')) return undefined;
      throw toStorageError(error, `reading ${path}`);
    }
  }

  writeManifest(manifest: Manifest): Promise<void> {
    this.assertOpen();
    return this.writes.run(() => replaceFile(this.dir, MANIFEST_FILE, Buffer.from(JSON.stringify(manifest, null, 2))));
  }

  async open(): Promise<StorageState> {
    this.assertOpen();
    const ordered = [...this.rounds.values()].sort((a, b) => a.facts.seq - b.facts.seq);
    return { rounds: ordered.map((logged) => logged.facts), index: this.commit, unindexed: ordered.filter((logged) => logged.units).map((logged) => logged.facts.id) };
  }

  async readSegments(ids: readonly string[]): Promise<(Uint8Array | undefined)[]> {
    this.assertOpen();
    return Promise.all(
      ids.map(async (id) => {
        if (!/^[0-9a-f]{64}$/.test(id)) return undefined;
        try {
          const bytes = await readFile(join(this.dir, SEGMENTS_DIR, id));
          return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        } catch (error) {
          if (isCode(error, 'ENOENT')) return undefined;
          throw toStorageError(error, `reading segment ${id}`);
        }
      }),
    );
  }

  async readUnits(roundIds: readonly string[]) {
    this.assertOpen();
    return roundIds.flatMap((id) => this.rounds.get(id)?.units ?? []);
  }

  async getRounds(roundIds: readonly string[]): Promise<(StoredRound | undefined)[]> {
    this.assertOpen();
    return Promise.all(
      roundIds.map(async (id) => {
        const logged = this.rounds.get(id);
        if (!logged) return undefined;
        if (!('offset' in logged.body)) return logged.body;
        const { offset, length } = logged.body;
        const buffer = Buffer.alloc(length);
        await io(`reading round ${id}`, () => this.log.read(buffer, 0, length, offset));
        try {
          return JSON.parse(buffer.toString('utf8')) as StoredRound;
        } catch (error) {
          throw new VmemError('STORAGE_FAILED', `Round "${id}" in ${join(this.dir, LOG_FILE)} cannot be read (the file was changed outside vmem); restore the folder from a backup.`, { cause: error });
        }
      }),
    );
  }

  putRounds(records: readonly RoundRecord[], change?: IndexChange): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      if (records.length === 0 && !change) return;
      assertStorablePictures(records);
      const entries: { record: RoundRecord; images: ImageEntry[] }[] = [];
      let wroteImages = false;
      for (const record of records) {
        const images: ImageEntry[] = [];
        for (const image of record.images) {
          const entry = imageEntry(image);
          if (this.imageById.get(image.id)?.file !== entry.file) {
            await writeAside(join(this.dir, IMAGES_DIR), entry.file, image.bytes);
            wroteImages = true;
          }
          images.push(entry);
        }
        entries.push({ record, images });
      }
      if (wroteImages) await syncDir(join(this.dir, IMAGES_DIR));
      await this.writeSegments(change);
      const replaced = entries.flatMap(({ record }) => this.rounds.get(record.round.id)?.images ?? []);
      const frame = change
        ? roundsFrame(entries.map(({ record, images }) => ({ round: record.round, facts: roundFacts(record.round), images })), change.commit)
        : putFrame(entries.map(({ record, images }) => ({ round: record.round, units: record.units, images })));
      await this.append(frame);
      await this.afterCommit(replaced, change);
    });
  }

  deleteRounds(roundIds: readonly string[], change?: IndexChange): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      const known = roundIds.filter((id) => this.rounds.has(id));
      if (known.length === 0 && !change) return;
      await this.writeSegments(change);
      const images = known.flatMap((id) => this.rounds.get(id)!.images);
      await this.append(deleteFrame(known, change?.commit));
      for (const id of known) this.rounds.delete(id);
      for (const image of images) this.imageById.delete(image.id);
      await this.afterCommit(images, change);
    });
  }

  writeIndex(change: IndexChange, indexed: readonly string[] = []): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      await this.writeSegments(change);
      // Rounds now in the index are written again without their vectors, in the frame that commits the index.
      const converted = indexed.flatMap((id) => {
        const logged = this.rounds.get(id);
        return logged?.units && !('offset' in logged.body) ? [{ round: logged.body, facts: logged.facts, images: logged.images }] : [];
      });
      await this.append(roundsFrame(converted, change.commit));
      await this.afterCommit([], change);
    });
  }

  async getImage(imageId: string): Promise<StoredImage | undefined> {
    this.assertOpen();
    const entry = this.imageById.get(imageId);
    if (!entry) return undefined;
    const path = join(this.dir, IMAGES_DIR, entry.file);
    const bytes = new Uint8Array(await io(`reading image ${imageId}`, () => readFile(path)));
    if (bytes.length !== entry.size || crc32(bytes) !== entry.crc) {
      throw new VmemError('STORAGE_FAILED', `The file of image "${imageId}" (${path}) was changed or damaged outside vmem; restore it from a backup, or forget its round.`);
    }
    return { id: entry.id, bytes, mimeType: entry.mimeType };
  }

  clear(): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      await io('clearing the log', async () => {
        await this.log.truncate(0);
        await this.log.sync();
      });
      this.size = 0;
      await io('removing the manifest', () => rm(join(this.dir, MANIFEST_FILE), { force: true }));
      const images = [...this.imageById.values()];
      this.rounds.clear();
      this.imageById.clear();
      this.commit = undefined;
      await this.removeUnreferenced(images);
      await this.removeUnnamedSegments();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.run(async () => undefined);
    await this.log.close();
    await this.lock.release();
  }

  /** Writes the change's new segments aside (durable, renamed into place) before the frame that names them. */
  private async writeSegments(change: IndexChange | undefined): Promise<void> {
    if (!change || change.add.length === 0) return;
    for (const segment of change.add) await writeAside(join(this.dir, SEGMENTS_DIR), segment.id, segment.bytes);
    await syncDir(join(this.dir, SEGMENTS_DIR));
  }

  /** What a committed frame makes unused: replaced images, and segments the new commit no longer names. */
  private async afterCommit(replaced: readonly ImageEntry[], change: IndexChange | undefined): Promise<void> {
    await this.removeUnreferenced(replaced);
    if (change) {
      this.commit = change.commit;
      await this.removeUnnamedSegments();
    }
  }

  /** Appends one frame and makes it durable; a failed write is cut off again so the log stays whole. */
  private async append(frame: Buffer): Promise<void> {
    try {
      // In slices: one write call takes at most 2 GiB, and a kill between slices is the torn frame replay drops.
      for (let at = 0; at < frame.length; ) {
        const { bytesWritten } = await this.log.write(frame, at, Math.min(APPEND_SLICE_BYTES, frame.length - at), this.size + at);
        at += bytesWritten;
      }
      await this.log.sync();
    } catch (error) {
      await this.log.truncate(this.size).catch(() => undefined); // The next open cuts it off anyway.
      throw toStorageError(error, `writing ${join(this.dir, LOG_FILE)}`);
    }
    // The frame's rounds, with their bodies' places in the file.
    const written = replayLog(frame, join(this.dir, LOG_FILE), this.size);
    for (const [id, logged] of written.rounds) {
      for (const image of this.rounds.get(id)?.images ?? []) this.imageById.delete(image.id);
      this.rounds.set(id, logged);
      for (const image of logged.images) this.imageById.set(image.id, image);
    }
    this.size += frame.length;
  }

  /** Deletes the files of `images` that no live round refers to any more. */
  private async removeUnreferenced(images: readonly ImageEntry[]): Promise<void> {
    for (const image of images) {
      if (this.imageById.get(image.id)?.file === image.file) continue;
      await io(`removing image ${image.id}`, () => rm(join(this.dir, IMAGES_DIR, image.file), { force: true }));
    }
  }

  private async removeUnnamedSegments(): Promise<void> {
    const named = new Set(this.commit?.segments.map((segment) => segment.id) ?? []);
    const dir = join(this.dir, SEGMENTS_DIR);
    for (const name of await io(`listing ${dir}`, () => readdir(dir))) {
      if (SEGMENT_FILE.test(name) && !name.endsWith(TEMP_SUFFIX) && !named.has(name)) await io(`removing segment ${name}`, () => rm(join(dir, name), { force: true }));
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new VmemError('CLOSED', `The memory folder ${this.dir} was closed; open it again with createFileStorage.`);
  }
}

/**
 * An image's file name: a hash of its id (ids are free text) and of its bytes' checksum, so new bytes
 * under an old id go to a new file and the committed round keeps pointing at intact bytes.
 */
function imageEntry(image: StoredImage): ImageEntry {
  const crc = crc32(image.bytes);
  const idHash = createHash('sha256').update(image.id).digest('hex').slice(0, 32);
  return { id: image.id, mimeType: image.mimeType, file: `${idHash}-${crc.toString(16).padStart(8, '0')}-${image.bytes.length}`, size: image.bytes.length, crc };
}

/** Writes `name` in `dir` completely under a temporary name, then renames it into place. */
async function writeAside(dir: string, name: string, bytes: Uint8Array): Promise<void> {
  const temp = join(dir, `${name}.${process.pid}${TEMP_SUFFIX}`);
  await io(`writing ${join(dir, name)}`, async () => {
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, join(dir, name));
  });
}

/** Replaces `name` in `dir` atomically and durably. */
async function replaceFile(dir: string, name: string, bytes: Uint8Array): Promise<void> {
  await writeAside(dir, name, bytes);
  await syncDir(dir);
}

/** Makes renames in `dir` durable (POSIX needs the folder itself synced; Windows cannot open one). */
async function syncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  await io(`syncing ${dir}`, async () => {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

async function io<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toStorageError(error, what);
  }
}

function toStorageError(error: unknown, what: string): VmemError {
  if (isVmemError(error)) return error;
  if (isCode(error, 'ENOSPC') || isCode(error, 'EDQUOT')) {
    return new VmemError('QUOTA_EXCEEDED', `The disk is full (${what}); free some space and try again. Nothing of this write was kept.`, { cause: error });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new VmemError('STORAGE_FAILED', `File storage failed while ${what}: ${reason}. Check that the folder exists, is writable and is on a local disk.`, { cause: error });
}
