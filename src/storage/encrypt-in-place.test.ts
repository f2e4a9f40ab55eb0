import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemory } from 'vmem';
import { createFileStorage, encryptMemoryFolder } from 'vmem/node';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { fixturePhotoOf, fixtureRounds } from './testing/file-storage-fixture.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./testing/encrypt-child.ts', import.meta.url));
const TEXT_ROUNDS = 4_990;
const PHOTO_ROUNDS = 10;
const TOTAL = TEXT_ROUNDS + PHOTO_ROUNDS;

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function allBytes(dir: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) if (entry.isFile()) parts.push(await readFile(join(entry.parentPath, entry.name)));
  return Buffer.concat(parts);
}

/** Runs the child that encrypts `dir`, and SIGKILLs it once it reported `killAt` rounds done. */
function encryptAndKill(dir: string, passphrase: string, killAt: number): Promise<number> {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, passphrase], { cwd: REPO });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    let done = 0;
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const reported = [...out.matchAll(/progress (\d+)/g)].map((match) => Number(match[1]));
      done = Math.max(0, ...reported);
      if (done >= killAt && proc.exitCode === null) proc.kill('SIGKILL');
    });
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    proc.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(done) : reject(new Error(`the child ended (${code ?? signal}) before it was killed: ${out.slice(-200)} ${err}`))));
  });
}

describe('encrypting a memory folder in place', () => {
  it('survives a kill halfway through 5,000 rounds: resumed, every round is whole and encrypted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vmem-encrypt-'));
    folders.push(dir);
    const plain = await createMemory({ textEncoder: createHashTextEncoder(), storage: await createFileStorage(dir) });
    for (let first = 0; first < TEXT_ROUNDS; first += 1_000) await plain.add(fixtureRounds(first, Math.min(1_000, TEXT_ROUNDS - first), false));
    await plain.add(fixtureRounds(TEXT_ROUNDS, PHOTO_ROUNDS, true));
    await plain.close();
    expect((await allBytes(dir)).includes('I noted item number 4321 ')).toBe(true);

    const killedAfter = await encryptAndKill(dir, 'in place', TOTAL / 2);
    expect(killedAfter).toBeGreaterThanOrEqual(TOTAL / 2);
    expect(killedAfter).toBeLessThan(TOTAL);
    // Halfway, the folder is already locked: without the passphrase it does not open.
    const halfway = await createFileStorage(dir);
    await expect(createMemory({ textEncoder: createHashTextEncoder(), storage: halfway })).rejects.toMatchObject({ code: 'PASSPHRASE_REQUIRED' });
    await halfway.close();
    await expect(encryptMemoryFolder(dir, { passphrase: 'not it' })).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });

    const progress: number[] = [];
    await encryptMemoryFolder(dir, { passphrase: 'in place' }, { onProgress: (event) => event.status === 'progress' && progress.push(event.loaded) });
    // Only what was left is done again (a killed batch at most).
    expect(progress.at(-1)!).toBeLessThanOrEqual(TOTAL - killedAfter + 256);

    const stored = await allBytes(dir);
    for (const index of [0, 1234, 2500, 4321, TOTAL - 1]) expect(stored.includes(`item number ${index} `), `round ${index}`).toBe(false);
    expect(stored.includes(Buffer.from(fixturePhotoOf(TEXT_ROUNDS).bytes.subarray(500, 532)))).toBe(false);

    const memory = await createMemory({ textEncoder: createHashTextEncoder(), storage: await createFileStorage(dir, { encryption: { passphrase: 'in place' } }) });
    expect(memory.size).toBe(TOTAL);
    const rounds = await memory.rounds();
    expect(rounds.map((round) => round.id)).toEqual(Array.from({ length: TOTAL }, (_, index) => `r${index}`));
    rounds.forEach((round, index) => {
      expect(round.user.text.startsWith(`Round ${index}: I noted item number ${index} about`)).toBe(true);
      expect(round.assistant.text).toBe(`Reply ${index}: noted.`);
    });
    const image = await memory.getImage(`img${TEXT_ROUNDS + 3}`);
    expect(Buffer.from(image!.bytes).equals(Buffer.from(fixturePhotoOf(TEXT_ROUNDS + 3).bytes))).toBe(true);
    for (const index of [7, 2600, 4999]) {
      const hits = await memory.search({ signal: 'bm25', text: `item number ${index}`, limit: 5 });
      expect(hits.some((hit) => hit.roundId === `r${index}`), `r${index}`).toBe(true);
    }
    await memory.close();
  }, 240_000);
});
