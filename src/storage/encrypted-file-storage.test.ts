import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemory, type RoundInput, type TextEmbedder } from 'vmem';
import { createFileStorage, exportMemory } from 'vmem/node';
import { quantize } from '../lanes/vector-matrix.js';
import { memoryContents } from '../memory/memory.js';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { readFixturePhoto } from '../testing/shared-data.js';
import { crc32, replayLog } from './file-storage-log.js';

const PHOTO = readFixturePhoto('sk_coffee.jpg');
const ROUNDS = 12;
/** Words no other text holds, one per place a round keeps text: ids, sessions, meta, turns, captions. */
const marker = (place: string, index: number) => `zq${place}marker${index}x`;

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vmem-sealed-'));
  folders.push(dir);
  return dir;
}

/** The hash encoder plus a small dense component, so every stored vector has varied bytes to look for. */
function denseEncoder(): TextEmbedder {
  const words = createHashTextEncoder({ dimension: 64 });
  return {
    id: 'hash-dense-64',
    dimension: 64,
    async embed(texts) {
      const vectors = await words.embed(texts);
      return vectors.map((vector, at) => {
        let seed = createHash('sha256').update(texts[at]!).digest().readUInt32LE(0);
        const mixed = vector.map((value) => {
          seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
          return value + (seed / 2 ** 32 - 0.5) * 0.2;
        });
        const norm = Math.hypot(...mixed);
        return mixed.map((value) => value / norm);
      });
    },
  };
}

function markedRounds(): RoundInput[] {
  return Array.from({ length: ROUNDS }, (_, index) => ({
    id: marker('roundid', index),
    sessionId: marker('session', index),
    timestamp: Date.UTC(2026, 0, 1) + index * 60_000,
    meta: { note: marker('meta', index) },
    user: {
      text: `I told you about ${marker('user', index)} today.`,
      ...(index % 4 === 0 ? { images: [{ id: marker('imageid', index), bytes: PHOTO, mimeType: 'image/jpeg', caption: `a photo of ${marker('caption', index)}` }] } : {}),
    },
    assistant: { text: `Noted ${marker('assistant', index)}.` },
  }));
}

/** Every file under `dir`, by path relative to it. */
async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files.set(path.slice(dir.length + 1), await readFile(path));
    }
  }
  return files;
}

async function fingerprint(dir: string): Promise<Record<string, string>> {
  const files = await filesOf(dir);
  return Object.fromEntries([...files].map(([name, bytes]) => [name, createHash('sha256').update(bytes).digest('hex')]));
}

/** Writes the marked rounds to a folder (encrypted or not) and exports them; returns what a reader should not find. */
async function writeMarkedMemory(dir: string, passphrase: string | undefined) {
  const storage = await createFileStorage(dir, passphrase ? { encryption: { passphrase } } : {});
  const memory = await createMemory({ textEncoder: denseEncoder(), storage });
  await memory.add(markedRounds());
  const exported = Buffer.from(await (await exportMemory(memory)).arrayBuffer());
  const vector = (await memoryContents(memory)).units.find((unit) => unit.kind === 'text')!.vector;
  await memory.close();
  const texts = markedRounds().flatMap((round, index) =>
    ['roundid', 'session', 'meta', 'user', 'assistant', ...(round.user.images ? ['caption', 'imageid'] : [])].map((place) => marker(place, index)),
  );
  return {
    exported,
    texts,
    photoSlice: Buffer.from(PHOTO.subarray(1000, 1032)),
    /** The index keeps vectors as int8 (one scale each); the export keeps them as float32. */
    int8Slice: Buffer.from(new Uint8Array(quantize(vector).values.buffer).subarray(0, 32)),
    float32Slice: Buffer.from(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength).subarray(0, 32)),
  };
}

const found = (haystacks: Buffer[], needle: Buffer | string) => haystacks.some((bytes) => bytes.includes(needle));

describe('an encrypted file-store memory', () => {
  it('stores nothing readable: no marker, photo slice or vector slice in any byte of the folder or of its export', async () => {
    const dir = await freshDir();
    const written = await writeMarkedMemory(dir, 'correct horse battery staple');
    const stored = [...(await filesOf(dir)).values()];
    const everywhere = [...stored, written.exported];
    expect(written.texts.length).toBeGreaterThan(ROUNDS * 5);
    for (const text of written.texts) expect(found(everywhere, text), text).toBe(false);
    for (const needle of [written.photoSlice, written.int8Slice, written.float32Slice]) expect(found(everywhere, needle)).toBe(false);

    // And it is all there for whoever has the passphrase.
    const memory = await createMemory({ textEncoder: denseEncoder(), storage: await createFileStorage(dir, { encryption: { passphrase: 'correct horse battery staple' } }) });
    expect(memory.size).toBe(ROUNDS);
    const result = await memory.retrieve(`what about ${marker('user', 5)}?`);
    expect(result.blocks.flatMap((block) => block.rounds.map((round) => round.id))).toContain(marker('roundid', 5));
    expect((await memory.get(marker('roundid', 4)))?.user.images[0]?.caption).toBe(`a photo of ${marker('caption', 4)}`);
    expect(Buffer.from((await memory.getImage(marker('imageid', 4)))!.bytes).equals(Buffer.from(PHOTO))).toBe(true);
    await memory.close();
  });

  it('the same scan finds every needle when the memory is not encrypted (so it can fail)', async () => {
    const dir = await freshDir();
    const written = await writeMarkedMemory(dir, undefined);
    const stored = [...(await filesOf(dir)).values()];
    for (const text of written.texts) {
      expect(found(stored, text), text).toBe(true);
      expect(found([written.exported], text), text).toBe(true);
    }
    expect(found(stored, written.photoSlice) && found([written.exported], written.photoSlice)).toBe(true);
    expect(found(stored, written.int8Slice)).toBe(true);
    expect(found([written.exported], written.float32Slice)).toBe(true);
  });

  it('a wrong passphrase gives WRONG_PASSPHRASE and leaves the folder byte-identical; none gives PASSPHRASE_REQUIRED', async () => {
    const dir = await freshDir();
    await writeMarkedMemory(dir, 'right');
    const before = await fingerprint(dir);
    await expect(createFileStorage(dir, { encryption: { passphrase: 'wrong' } })).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    expect(await fingerprint(dir)).toEqual(before);
    const plain = await createFileStorage(dir);
    await expect(createMemory({ textEncoder: denseEncoder(), storage: plain })).rejects.toMatchObject({ code: 'PASSPHRASE_REQUIRED' });
    await plain.close();
    expect(await fingerprint(dir)).toEqual(before);
  });

  it('changePassphrase re-wraps the key only: one file rewritten (the manifest), the old passphrase fails, the new one opens', async () => {
    const dir = await freshDir();
    await writeMarkedMemory(dir, 'old secret');
    const before = await fingerprint(dir);
    const storage = await createFileStorage(dir, { encryption: { passphrase: 'old secret' } });
    await expect(storage.changePassphrase('not it', 'new secret')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    await storage.changePassphrase('old secret', 'new secret');
    await storage.close();
    const after = await fingerprint(dir);
    const rewritten = Object.keys(after).filter((name) => after[name] !== before[name]);
    expect(rewritten).toEqual(['manifest.json']);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());

    await expect(createFileStorage(dir, { encryption: { passphrase: 'old secret' } })).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    const memory = await createMemory({ textEncoder: denseEncoder(), storage: await createFileStorage(dir, { encryption: { passphrase: 'new secret' } }) });
    expect(memory.size).toBe(ROUNDS);
    expect((await memory.get(marker('roundid', 3)))?.assistant.text).toBe(`Noted ${marker('assistant', 3)}.`);
    await memory.close();
  });

  it('a byte changed in one stored round gives INTEGRITY_ERROR for that round only; the rest retrieves', async () => {
    const dir = await freshDir();
    await writeMarkedMemory(dir, 'pw');
    const logPath = join(dir, 'rounds.log');
    const log = await readFile(logPath);
    // The round at position 7 (its stored name is an HMAC, so it is found by position).
    const target = [...replayLog(log, logPath).rounds.values()].find((logged) => logged.facts.seq === 7)!;
    if (!('offset' in target.body)) throw new Error('expected a body range');
    log[target.body.offset + Math.floor(target.body.length / 2)]! ^= 0x04;
    // A crc32 is no seal: whoever edits the file fixes the frame's checksum too (a random flip is caught by it first).
    for (let at = 0; at < log.length; ) {
      const length = log.readUInt32LE(at + 8);
      if (target.body.offset < at + 16 + length) {
        log.writeUInt32LE(crc32(log.subarray(at + 16, at + 16 + length)), at + 12);
        break;
      }
      at += 16 + length;
    }
    await writeFile(logPath, log);

    const memory = await createMemory({ textEncoder: denseEncoder(), storage: await createFileStorage(dir, { encryption: { passphrase: 'pw' } }) });
    const damagedId = (await memoryContents(memory).catch((error: unknown) => error)) as Error;
    expect(damagedId).toMatchObject({ code: 'INTEGRITY_ERROR' });
    expect(damagedId.message).toContain(`round "${marker('roundid', 7)}"`);
    await expect(memory.get(marker('roundid', 7))).rejects.toMatchObject({ code: 'INTEGRITY_ERROR' });
    for (const index of [0, 6, 8, 11]) expect((await memory.get(marker('roundid', index)))?.user.text).toContain(marker('user', index));
    const result = await memory.retrieve(marker('user', 9), { k: 1, neighbours: 0 });
    expect(result.blocks.flatMap((block) => block.rounds.map((round) => round.id))).toEqual([marker('roundid', 9)]);
    // Forgetting the damaged round is the way out: everything else exports whole.
    await memory.forget(marker('roundid', 7));
    expect((await memoryContents(memory)).rounds).toHaveLength(ROUNDS - 1);
    await memory.close();
  });

  it('keeps a sealed cache of the facts for fast opens, and opens right when rounds changed since it was written', async () => {
    const dir = await freshDir();
    const open = async () => createMemory({ textEncoder: denseEncoder(), storage: await createFileStorage(dir, { encryption: { passphrase: 'cache' } }) });
    const rounds = (first: number, count: number) =>
      Array.from({ length: count }, (_, at) => ({ id: `c${first + at}`, sessionId: `zqcachesession${(first + at) % 3}`, user: { text: `zqcachemarker${first + at} note` }, assistant: { text: 'ok' } }));
    let memory = await open();
    await memory.add(rounds(0, 300));
    const segmentsBefore = (await readdir(join(dir, 'segments'))).length;
    await memory.close();
    // The add wrote the cache with its rounds (300 outside it are enough), so closing writes nothing more; it is sealed like the rest.
    expect((await readdir(join(dir, 'segments'))).length).toBe(segmentsBefore);
    const stored = [...(await filesOf(dir)).values()];
    for (const text of ['zqcachemarker17', 'zqcachesession1']) expect(found(stored, text), text).toBe(false);

    memory = await open();
    expect(memory.size).toBe(300);
    await memory.update('c5', { user: { text: 'zqcachemarker5 changed' } });
    await memory.forget('c6');
    await memory.add(rounds(300, 2));
    await memory.close();
    memory = await open();
    expect(memory.size).toBe(301);
    expect(memory.has('c6')).toBe(false);
    expect((await memory.get('c5'))?.user.text).toBe('zqcachemarker5 changed');
    expect((await memory.retrieve('zqcachemarker301', { k: 1, filter: { sessionIds: ['zqcachesession1'] } })).blocks[0]?.rounds[0]?.id).toBe('c301');
    expect((await memory.retrieve('zqcachemarker300', { k: 1, filter: { sessionIds: ['zqcachesession1'] } })).blocks.flatMap((block) => block.rounds.map((round) => round.id))).not.toContain('c300');
    await memory.close();
  });

  it('a sealed segment that fails to authenticate is rebuilt from the rounds', async () => {
    const dir = await freshDir();
    await writeMarkedMemory(dir, 'seg');
    const [name] = await readdir(join(dir, 'segments'));
    const path = join(dir, 'segments', name!);
    const bytes = await readFile(path);
    bytes[bytes.length >> 1]! ^= 0x10;
    await writeFile(path, bytes);
    const memory = await createMemory({ textEncoder: denseEncoder(), storage: await createFileStorage(dir, { encryption: { passphrase: 'seg' } }) });
    expect(memory.size).toBe(ROUNDS);
    const result = await memory.retrieve(marker('user', 3), { k: 1, neighbours: 0 });
    expect(result.blocks.flatMap((block) => block.rounds.map((round) => round.id))).toEqual([marker('roundid', 3)]);
    await memory.close();
  });
});
