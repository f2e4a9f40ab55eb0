/**
 * A memory kept in a folder on disk, for Node (agents, the MCP server, scripts):
 *
 * - `rounds.log`: the append-only round log (see file-storage-log.ts): every `putRounds` call is one
 *   checksummed frame, so a crash keeps or loses the whole call, never part of a round.
 * - `images/`: one file per image, written aside and renamed into place before the frame that
 *   refers to it, so a committed round never points at a missing or half-written picture. Files no
 *   committed round refers to (left by a crash) are removed on open.
 * - `manifest.json`: the encoders that built the memory, replaced atomically (temp file + rename).
 * - `LOCK`: the one process allowed to write (see file-storage-lock.ts).
 *
 * Opening reads the log once and hands its vectors to `loadAll`, so nothing is re-encoded.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { VmemError, isVmemError } from '../errors.js';
import type { StoredRound, StoredUnit } from '../types.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { crc32, deleteFrame, putFrame, replayLog, type ImageEntry, type LoggedRound, type Replay } from './file-storage-log.js';
import { acquireWriterLock, isCode, LOCK_FILE, type WriterLock } from './file-storage-lock.js';
import type { Manifest, MemoryStorage, RoundRecord, StoredImage } from './types.js';
import { assertStorablePictures } from './picture-check.js';

const LOG_FILE = 'rounds.log';
const MANIFEST_FILE = 'manifest.json';
const IMAGES_DIR = 'images';
const TEMP_SUFFIX = '.tmp';
/** Names this store writes, and only these are ever deleted: image files and temporary files. */
const IMAGE_FILE = /^[0-9a-f]{32}-[0-9a-f]{8}-\d+(\.\d+\.tmp)?$/;
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

/**
 * Opens (creating if needed) a memory folder for writing. Each `putRounds` call is stored whole or
 * not at all, even if the process is killed mid-write; a torn write is dropped on the next open. A
 * second writer, in another process or this one, is refused with `MEMORY_LOCKED` until this one
 * calls `close()` (a lock left by a process that died is taken over). Disk-full errors reject with
 * `QUOTA_EXCEEDED`, other I/O errors and damage a crash cannot cause with `STORAGE_FAILED`.
 * @example
 * const memory = await createMemory({ textEncoder, imageEncoder, storage: await createFileStorage('./my-memory') });
 */
export async function createFileStorage(dir: string): Promise<FileMemoryStorage> {
  if (typeof dir !== 'string' || dir.trim() === '') throw new VmemError('INVALID_INPUT', 'createFileStorage needs the path of a folder, e.g. "./my-memory".');
  const root = resolve(dir);
  await assertMemoryFolder(root);
  await io(`creating ${root}`, () => mkdir(join(root, IMAGES_DIR), { recursive: true }));
  const lock = await acquireWriterLock(root);
  try {
    const { replay, size } = await openLog(root);
    const log = await io(`opening ${join(root, LOG_FILE)}`, () => open(join(root, LOG_FILE), 'r+'));
    return new FileStorage(root, lock, log, size, replay);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Replays the log, cuts off a torn tail, compacts when worthwhile, and removes what a crash left. */
async function openLog(root: string): Promise<{ replay: Replay; size: number }> {
  const path = join(root, LOG_FILE);
  const bytes = await readFile(path).catch((error: unknown) => {
    if (isCode(error, 'ENOENT')) return Buffer.alloc(0);
    throw toStorageError(error, `reading ${path}`);
  });
  let replay = replayLog(bytes, path);
  let size = replay.goodBytes;
  if (replay.deadBytes > COMPACT_MIN_DEAD_BYTES && replay.deadBytes > size - replay.deadBytes) {
    const live = [...replay.rounds.values()].sort((a, b) => a.round.seq - b.round.seq);
    const frames: Buffer[] = [];
    for (let start = 0; start < live.length; start += COMPACT_FRAME_ROUNDS) frames.push(putFrame(live.slice(start, start + COMPACT_FRAME_ROUNDS)));
    const compacted = Buffer.concat(frames);
    await replaceFile(root, LOG_FILE, compacted);
    replay = { rounds: replay.rounds, deadBytes: 0, goodBytes: compacted.length };
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

/**
 * Refuses a folder that holds anything but a memory: opening deletes unreferenced files in
 * `images/`, which must never be someone's own pictures.
 */
async function assertMemoryFolder(root: string): Promise<void> {
  const names = await readdir(root).catch((error: unknown): string[] => {
    if (isCode(error, 'ENOENT')) return [];
    throw toStorageError(error, `reading ${root}`);
  });
  const ours = (name: string) => name === LOG_FILE || name === MANIFEST_FILE || name === IMAGES_DIR || name.startsWith(LOCK_FILE) || ROOT_TEMP_FILE.test(name);
  const foreign = names.filter((name) => !ours(name));
  if (!names.includes(LOG_FILE) && foreign.length > 0) {
    throw new VmemError(
      'INVALID_INPUT',
      `${root} is not a vmem memory folder (it holds ${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}); give an empty or new folder.`,
    );
  }
}

/** Deletes image files no live round refers to, and temporary files of writes that never finished. */
async function removeLeftovers(root: string, replay: Replay): Promise<void> {
  const referenced = new Set([...replay.rounds.values()].flatMap((logged) => logged.images.map((image) => image.file)));
  const imagesDir = join(root, IMAGES_DIR);
  for (const name of await io(`listing ${imagesDir}`, () => readdir(imagesDir))) {
    if (IMAGE_FILE.test(name) && !referenced.has(name)) await io(`removing ${name}`, () => rm(join(imagesDir, name), { force: true }));
  }
  for (const name of await io(`listing ${root}`, () => readdir(root))) {
    if (ROOT_TEMP_FILE.test(name)) await io(`removing ${name}`, () => rm(join(root, name), { force: true }));
  }
}

class FileStorage implements FileMemoryStorage {
  readonly dir: string;
  private readonly lock: WriterLock;
  private readonly log: FileHandle;
  private size: number;
  /** The replay of opening, handed to the first `loadAll`; dropped by any write. */
  private opened: Replay | undefined;
  private readonly imagesOfRound = new Map<string, readonly ImageEntry[]>();
  private readonly imageById = new Map<string, ImageEntry>();
  private readonly writes = createSerialQueue();
  private closed = false;

  constructor(dir: string, lock: WriterLock, log: FileHandle, size: number, replay: Replay) {
    this.dir = dir;
    this.lock = lock;
    this.log = log;
    this.size = size;
    this.opened = replay;
    for (const logged of replay.rounds.values()) this.indexImages(logged.round.id, logged.images);
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

  async loadAll(): Promise<{ rounds: StoredRound[]; units: StoredUnit[] }> {
    this.assertOpen();
    const replay = this.opened ?? (await this.writes.run(async () => replayLog(await io('reading the log', () => readFile(join(this.dir, LOG_FILE))), join(this.dir, LOG_FILE))));
    this.opened = undefined;
    const ordered = [...replay.rounds.values()].sort((a, b) => a.round.seq - b.round.seq);
    return { rounds: ordered.map((logged) => logged.round), units: ordered.flatMap((logged) => logged.units) };
  }

  putRounds(records: readonly RoundRecord[]): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      if (records.length === 0) return;
      assertStorablePictures(records);
      const logged: LoggedRound[] = [];
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
        logged.push({ round: record.round, units: record.units, images });
      }
      if (wroteImages) await syncDir(join(this.dir, IMAGES_DIR));
      await this.append(putFrame(logged));
      const replaced = logged.flatMap((item) => this.imagesOfRound.get(item.round.id) ?? []);
      for (const item of logged) this.indexImages(item.round.id, item.images);
      await this.removeUnreferenced(replaced);
    });
  }

  deleteRound(roundId: string): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      const images = this.imagesOfRound.get(roundId);
      if (images === undefined) return;
      await this.append(deleteFrame([roundId]));
      this.imagesOfRound.delete(roundId);
      for (const image of images) this.imageById.delete(image.id);
      await this.removeUnreferenced(images);
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
      this.opened = undefined;
      await io('removing the manifest', () => rm(join(this.dir, MANIFEST_FILE), { force: true }));
      const images = [...this.imageById.values()];
      this.imagesOfRound.clear();
      this.imageById.clear();
      await this.removeUnreferenced(images);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.run(async () => undefined);
    await this.log.close();
    await this.lock.release();
  }

  /** Appends one frame and makes it durable; a failed write is cut off again so the log stays whole. */
  private async append(frame: Buffer): Promise<void> {
    this.opened = undefined;
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
    this.size += frame.length;
  }

  private indexImages(roundId: string, images: readonly ImageEntry[]): void {
    for (const old of this.imagesOfRound.get(roundId) ?? []) this.imageById.delete(old.id);
    this.imagesOfRound.set(roundId, images);
    for (const image of images) this.imageById.set(image.id, image);
  }

  /** Deletes the files of `images` that no live round refers to any more. */
  private async removeUnreferenced(images: readonly ImageEntry[]): Promise<void> {
    for (const image of images) {
      if (this.imageById.get(image.id)?.file === image.file) continue;
      await io(`removing image ${image.id}`, () => rm(join(this.dir, IMAGES_DIR, image.file), { force: true }));
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
