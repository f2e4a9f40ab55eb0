import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemory, type StoredUnit } from 'vmem';
import { memoryContents } from '../memory/memory.js';
import { createFileStorage } from 'vmem/node';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { crc32Table } from './file-storage-log.js';
import { fixturePhotoOf, fixtureRounds } from './testing/file-storage-fixture.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./testing/file-storage-child.ts', import.meta.url));

const folders: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const proc of children.splice(0)) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vmem-file-'));
  folders.push(dir);
  return dir;
}

async function openMemory(dir: string, encoder = createHashTextEncoder()) {
  return createMemory({ textEncoder: encoder, storage: await createFileStorage(dir) });
}

/** Opens the folder, adds fixture rounds `first`… in one call, and closes it again. */
async function addRounds(dir: string, first: number, count: number, photos: boolean): Promise<void> {
  const memory = await openMemory(dir);
  await memory.add(fixtureRounds(first, count, photos));
  await memory.close();
}

/** Starts the child script; resolves once it printed `line`. */
function startChild(args: string[], line: string): Promise<ChildProcessWithoutNullStreams> {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: REPO });
  children.push(proc);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.split('\n').includes(line)) resolve(proc);
    });
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    proc.on('exit', (code, signal) => reject(new Error(`child exited (${code ?? signal}) before "${line}": ${err}`)));
  });
}

const exited = (proc: ChildProcessWithoutNullStreams) => new Promise<void>((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.once('exit', () => resolve())));

/**
 * Opens the folder as a memory and checks that every round is whole and indexed exactly once: the
 * text and picture it was added with, every unit it should have (no more), each unit's vector the
 * encoding of its own text (to int8 rounding), retrievable by its words, and the image bytes intact.
 * Returns the ids, in order.
 */
async function wholeRounds(dir: string, photos: boolean): Promise<string[]> {
  const encoder = createHashTextEncoder();
  const memory = await createMemory({ textEncoder: encoder, storage: await createFileStorage(dir) });
  try {
    const { rounds, units } = await memoryContents(memory);
    const unitsOf = new Map<string, StoredUnit[]>();
    for (const unit of units) unitsOf.set(unit.roundId, [...(unitsOf.get(unit.roundId) ?? []), unit]);
    const reference = createHashTextEncoder();
    for (const round of rounds) {
      const index = Number(round.id.slice(1));
      expect(round.user.text).toContain(`Round ${index}: I noted item number ${index}`);
      expect(round.assistant.text).toBe(`Reply ${index}: noted.`);
      const own = unitsOf.get(round.id) ?? [];
      expect(own.map((unit) => unit.kind).sort()).toEqual(photos ? ['caption', 'text', 'text'] : ['text', 'text']);
      const expected = await reference.embed(own.map((unit) => unit.text!));
      own.forEach((unit, at) => expect(Math.max(...unit.vector.map((value, i) => Math.abs(value - expected[at]![i]!)))).toBeLessThan(0.01));
      if (photos) {
        expect(round.user.images).toEqual([expect.objectContaining({ id: `img${index}`, caption: `photo number ${index}`, hasBytes: true })]);
        expect((await memory.getImage(`img${index}`))?.bytes).toEqual(fixturePhotoOf(index).bytes);
      }
    }
    // Every stored round is indexed once: the index holds exactly the stored rounds' units, none re-encoded.
    expect(units).toHaveLength(rounds.length * (photos ? 3 : 2));
    expect(encoder.calls).toBe(0);
    if (rounds.length > 0) {
      // Found by the one word no other round holds, its number. (A fused retrieval is no such check: among
      // 20,000 rounds the hash encoder scores many alike, and one of them can come first.)
      const last = rounds[rounds.length - 1]!;
      const index = Number(last.id.slice(1));
      expect((await memory.search({ signal: 'bm25', text: `item number ${index}`, limit: 1 }))[0]?.roundId).toBe(last.id);
    }
    // Nothing a crash left behind survives the open: one file per stored picture, no temporary files.
    expect(await readdir(join(dir, 'images'))).toHaveLength(photos ? rounds.length : 0);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect((await readdir(join(dir, 'segments'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    return rounds.map((round) => round.id);
  } finally {
    await memory.close();
  }
}

const ids = (first: number, count: number) => Array.from({ length: count }, (_, offset) => `r${first + offset}`);

describe('createFileStorage', () => {
  it('keeps rounds, pictures and vectors across a restart, without re-encoding', async () => {
    const dir = await freshDir();
    const first = await openMemory(dir);
    await first.add(fixtureRounds(0, 30, true));
    await first.setCaption('img3', 'a new caption for the third picture');
    await first.forget('r7');
    await first.close();

    const encoder = createHashTextEncoder();
    const again = await openMemory(dir, encoder);
    expect(encoder.calls).toBe(0);
    expect(again.size).toBe(29);
    expect((await again.get('r7'))).toBeUndefined();
    expect(await again.getImage('img7')).toBeUndefined();
    expect((await again.get('r3'))!.user.images[0]!.caption).toBe('a new caption for the third picture');
    expect((await again.getImage('img12'))?.bytes).toEqual(fixturePhotoOf(12).bytes);
    const result = await again.retrieve('item number 21 about topic 4', { k: 1 });
    expect(result.trace[0]!.roundId).toBe('r21');
    // Only the 29 live pictures have files: forgetting a round removed its own.
    expect(await readdir(join(dir, 'images'))).toHaveLength(29);
    await again.clear();
    await again.close();
    const cleared = await openMemory(dir);
    expect(cleared.size).toBe(0);
    expect(await readdir(join(dir, 'images'))).toEqual([]);
    await cleared.close();
  });

  it('refuses a second writer, in this process and in another, until the first closes', async () => {
    const dir = await freshDir();
    const storage = await createFileStorage(dir);
    await expect(createFileStorage(dir)).rejects.toMatchObject({ code: 'MEMORY_LOCKED', message: expect.stringContaining('this process already') });
    await storage.close();

    const holder = await startChild(['hold', dir], 'ready');
    await expect(createFileStorage(dir)).rejects.toMatchObject({ code: 'MEMORY_LOCKED', message: expect.stringContaining(`process ${holder.pid}`) });
    holder.stdin.end();
    await exited(holder);
    expect(holder.exitCode).toBe(0);
    await (await createFileStorage(dir)).close();

    // A writer that was killed leaves its lock behind; a dead process's lock is taken over.
    const killed = await startChild(['hold', dir], 'ready');
    killed.kill('SIGKILL');
    await exited(killed);
    expect(JSON.parse(await readFile(join(dir, 'LOCK'), 'utf8'))).toMatchObject({ pid: killed.pid });
    await (await createFileStorage(dir)).close();
  });

  it('a process killed while writing pictures of a large add leaves the memory consistent', async () => {
    const dir = await freshDir();
    await addRounds(dir, 0, 20, true);

    const writer = await startChild(['add', dir, '20', '600', 'photos'], 'open');
    // Kill it once the large add's pictures are being written, before its log frame commits them.
    while ((await readdir(join(dir, 'images'))).length < 40) await new Promise((resolve) => setTimeout(resolve, 2));
    writer.kill('SIGKILL');
    await exited(writer);

    expect(await wholeRounds(dir, true)).toEqual(ids(0, 20));
    await addRounds(dir, 20, 5, true);
    expect(await wholeRounds(dir, true)).toEqual(ids(0, 25));
  });

  it('a process killed while appending a large add keeps all of that add or none of it', async () => {
    const dir = await freshDir();
    await addRounds(dir, 0, 50, false);
    const committed = (await stat(join(dir, 'rounds.log'))).size;

    const writer = await startChild(['add', dir, '50', '20000', 'text'], 'open');
    while ((await stat(join(dir, 'rounds.log'))).size === committed && writer.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 1));
    writer.kill('SIGKILL');
    await exited(writer);

    const kept = await wholeRounds(dir, false);
    expect([ids(0, 50), ids(0, 20_050)]).toContainEqual(kept);
  });

  it('the same large add, not killed, reads back whole (the outcome the kill above reaches when it comes late)', async () => {
    const dir = await freshDir();
    await addRounds(dir, 0, 50, false);
    await addRounds(dir, 50, 20_000, false);
    expect(await wholeRounds(dir, false)).toEqual(ids(0, 20_050));
  });

  for (const point of ['segment-written', 'segment-renamed'] as const) {
    it(`a process killed while storing an add's index segment (${point}) loses that add whole, and nothing is indexed twice`, async () => {
      const dir = await freshDir();
      await addRounds(dir, 0, 30, false);
      const writer = await startChild(['crash', dir, '30', '200', '1', point], 'open');
      await exited(writer);
      expect(writer.signalCode).toBe('SIGKILL');
      expect(await wholeRounds(dir, false)).toEqual(ids(0, 30));
      // The half-stored segment is gone; the memory goes on writing.
      expect((await readdir(join(dir, 'segments'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
      await addRounds(dir, 30, 5, false);
      expect(await wholeRounds(dir, false)).toEqual(ids(0, 35));
    });
  }

  for (const point of ['merge-written', 'merge-renamed'] as const) {
    it(`a process killed during a background merge (${point}) keeps every round, indexed once`, async () => {
      const dir = await freshDir();
      // Eight adds make eight segments of one size: the merge starts after the last.
      const writer = await startChild(['crash', dir, '0', '40', '8', point], 'open');
      await exited(writer);
      expect(writer.signalCode).toBe('SIGKILL');
      const segmentsLeft = (await readdir(join(dir, 'segments'))).filter((name) => !name.endsWith('.tmp'));
      expect(await wholeRounds(dir, false)).toEqual(ids(0, 320));
      // Reopening dropped the merged segment the log never named: the eight it was made of remain.
      expect((await readdir(join(dir, 'segments'))).length).toBe(8);
      expect(segmentsLeft.length).toBeGreaterThanOrEqual(8);
    });
  }

  it('drops a torn last write wherever it was cut, and keeps writing after it', async () => {
    const dir = await freshDir();
    await addRounds(dir, 0, 10, false);
    const committed = (await stat(join(dir, 'rounds.log'))).size;
    await addRounds(dir, 10, 10, false);
    const full = (await stat(join(dir, 'rounds.log'))).size;

    for (const cut of [committed + 1, committed + 15, committed + 16, committed + 200, full - 1]) {
      const copy = await freshDir();
      await cp(dir, copy, { recursive: true });
      await truncate(join(copy, 'rounds.log'), cut);
      expect(await wholeRounds(copy, false)).toEqual(ids(0, 10));
      expect((await stat(join(copy, 'rounds.log'))).size).toBe(committed);
    }
    // A power cut can also leave zeros where the last write was going.
    const zeroed = await freshDir();
    await cp(dir, zeroed, { recursive: true });
    const bytes = await readFile(join(zeroed, 'rounds.log'));
    bytes.fill(0, committed);
    await writeFile(join(zeroed, 'rounds.log'), bytes);
    expect(await wholeRounds(zeroed, false)).toEqual(ids(0, 10));
    await addRounds(zeroed, 10, 3, false);
    expect(await wholeRounds(zeroed, false)).toEqual(ids(0, 13));
  });

  it('refuses a log damaged in the middle, which no crash can cause', async () => {
    const dir = await freshDir();
    await addRounds(dir, 0, 10, false);
    await addRounds(dir, 10, 10, false);
    const bytes = await readFile(join(dir, 'rounds.log'));
    bytes[100]! ^= 0xff;
    await writeFile(join(dir, 'rounds.log'), bytes);
    await expect(createFileStorage(dir)).rejects.toMatchObject({ code: 'STORAGE_FAILED', message: expect.stringContaining('damaged at byte 0') });
    // The refusal released the lock: nothing is left holding the folder.
    await expect(readFile(join(dir, 'LOCK'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a folder that is not a memory, and never deletes files it did not write', async () => {
    const dir = await freshDir();
    await mkdir(join(dir, 'images'));
    await writeFile(join(dir, 'images', 'holiday.jpg'), 'my own picture');
    await writeFile(join(dir, 'notes.tmp'), 'my own notes');
    await expect(createFileStorage(dir)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('not a vmem memory folder') });
    expect(await readdir(join(dir, 'images'))).toEqual(['holiday.jpg']);

    const memory = await freshDir();
    await addRounds(memory, 0, 3, true);
    await writeFile(join(memory, 'images', 'holiday.jpg'), 'my own picture');
    await writeFile(join(memory, 'notes.tmp'), 'my own notes');
    await addRounds(memory, 3, 1, true);
    expect(await readFile(join(memory, 'images', 'holiday.jpg'), 'utf8')).toBe('my own picture');
    expect(await readFile(join(memory, 'notes.tmp'), 'utf8')).toBe('my own notes');
  });

  it('compacts a log mostly made of forgotten rounds when it opens', async () => {
    const dir = await freshDir();
    const memory = await openMemory(dir);
    await memory.add(fixtureRounds(0, 3000, false));
    for (let index = 0; index < 2900; index++) await memory.forget(`r${index}`);
    await memory.close();
    const before = (await stat(join(dir, 'rounds.log'))).size;
    expect(await wholeRounds(dir, false)).toEqual(ids(2900, 100));
    expect((await stat(join(dir, 'rounds.log'))).size).toBeLessThan(before / 10);
  });

  it('opens a 5k-round memory from its vectors', async () => {
    const dir = await freshDir();
    const memory = await openMemory(dir, createHashTextEncoder({ dimension: 512 }));
    for (let first = 0; first < 5000; first += 1000) await memory.add(fixtureRounds(first, 1000, false));
    await memory.close();

    const encoder = createHashTextEncoder({ dimension: 512 });
    const started = performance.now();
    const reopened = await openMemory(dir, encoder);
    const openMs = performance.now() - started;
    console.log(`file storage: opened 5,000 rounds (10,000 units of 512-d, ${((await stat(join(dir, 'rounds.log'))).size / 1e6).toFixed(1)} MB log) in ${openMs.toFixed(0)} ms`);
    expect(reopened.size).toBe(5000);
    expect(encoder.calls).toBe(0);
    expect((await reopened.retrieve('item number 4321 about topic 3', { k: 1 })).trace[0]!.roundId).toBe('r4321');
    await reopened.close();
  });
});

describe('crc32', () => {
  it('the table fallback agrees with zlib', () => {
    expect(crc32Table(Buffer.from('123456789'))).toBe(0xcbf43926);
    const bytes = new Uint8Array(10_000).map((_, i) => (i * 7919) & 0xff);
    expect(crc32Table(bytes)).toBe(zlib.crc32(bytes));
  });
});
