/**
 * One writer per memory folder: a `LOCK` file naming the process that holds it. It is created
 * complete in one step (written aside, then hard-linked into place, which fails if one exists), so
 * no process ever sees a half-written lock. A lock whose process is gone (killed, crashed) is stale
 * and taken over; one held by a live process, this one included, refuses the open.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { VmemError } from '../errors.js';

/** The lock's file name inside the memory folder. */
export const LOCK_FILE = 'LOCK';

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

/** A held lock. */
export interface WriterLock {
  /** Removes the lock file if it is still this holder's. */
  release(): Promise<void>;
}

/** Takes the folder's writer lock, or rejects with `MEMORY_LOCKED` naming the holder. */
export async function acquireWriterLock(dir: string): Promise<WriterLock> {
  const path = join(dir, LOCK_FILE);
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() } satisfies Holder);
  const staging = join(dir, `${LOCK_FILE}.${process.pid}.${Math.random().toString(36).slice(2)}`);
  await writeFile(staging, mine);
  try {
    // A second try follows taking over a stale lock; a third contender then wins or refuses.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(staging, path);
        return { release: () => releaseIfMine(path, mine) };
      } catch (error) {
        if (!isCode(error, 'EEXIST')) throw error;
      }
      const seen = await readText(path);
      if (seen === undefined) continue; // Released meanwhile.
      const holder = parseHolder(seen);
      if (holder && isAlive(holder)) throw lockedError(dir, holder);
      await takeOverStale(dir, path, seen);
    }
    throw lockedError(dir, undefined);
  } finally {
    await unlink(staging).catch(() => undefined);
  }
}

/**
 * Moves a stale lock aside. Rename is atomic, so if another process replaced the stale lock with
 * its own in the meantime, what was moved is that fresh lock: it is put back and the open refused.
 */
async function takeOverStale(dir: string, path: string, stale: string): Promise<void> {
  const aside = `${path}.stale.${process.pid}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    throw error;
  }
  const moved = await readText(aside);
  if (moved !== stale) {
    await rename(aside, path);
    throw lockedError(dir, moved === undefined ? undefined : parseHolder(moved));
  }
  await unlink(aside);
}

async function releaseIfMine(path: string, mine: string): Promise<void> {
  if ((await readText(path)) === mine) await unlink(path);
}

function isAlive(holder: Holder): boolean {
  // A process on another machine (a shared drive) cannot be checked: assume it lives.
  if (holder.host !== hostname() || holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return !isCode(error, 'ESRCH'); // EPERM: it exists, it just is not ours to signal.
  }
}

function lockedError(dir: string, holder: Holder | undefined): VmemError {
  const who =
    holder === undefined
      ? 'another process'
      : holder.pid === process.pid && holder.host === hostname()
        ? 'this process already (close the other memory over it first)'
        : `process ${holder.pid} on ${holder.host} since ${holder.since}`;
  return new VmemError(
    'MEMORY_LOCKED',
    `The memory folder ${dir} is open for writing by ${who}. One process at a time may write to it: close it there first. ` +
      `If that process is gone for good (for example on another machine), delete ${join(dir, LOCK_FILE)}.`,
  );
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    return typeof value.pid === 'number' && typeof value.host === 'string' ? { pid: value.pid, host: value.host, since: String(value.since) } : undefined;
  } catch {
    return undefined; // Not written by vmem: treated as stale, like a lock of a dead process.
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined;
    throw error;
  }
}

/** True for a Node system error with this `code`. */
export function isCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
