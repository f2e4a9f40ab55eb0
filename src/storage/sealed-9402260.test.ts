import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from 'vmem';
import { createFileStorage } from 'vmem/node';
import { createHashTextEncoder } from '../testing/hash-encoder.js';

/**
 * An encrypted memory as vmem stored it at 9402260 (`src/storage/testing/sealed-9402260/generate.ts`
 * wrote it with that commit's own code): each round's facts sealed in its own record, the facts
 * cache as one JSON list, and rounds changed after the cache was written. It opens whole, answers
 * as it did, and keeps opening after this version writes to it.
 */
const FIXTURE = fileURLToPath(new URL('./testing/sealed-9402260/', import.meta.url));
const expected = JSON.parse(await readFile(join(FIXTURE, 'expected.json'), 'utf8')) as {
  passphrase: string;
  rounds: { id: string; seq: number; sessionId: string; timestamp: number; user: string; assistant: string; meta?: Record<string, string | number> }[];
  answers: { question: string; rounds: string[] }[];
};

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function copyOfFixture(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vmem-sealed-9402260-'));
  folders.push(dir);
  await cp(join(FIXTURE, 'file-store'), dir, { recursive: true });
  return dir;
}

const open = async (dir: string) =>
  createMemory({ textEncoder: createHashTextEncoder(), storage: await createFileStorage(dir, { encryption: { passphrase: expected.passphrase } }), retrieval: { llmAnchors: false } });

async function expectAsStored(memory: Memory, rounds = expected.rounds): Promise<void> {
  const seen = (await memory.rounds()).map((round) => ({
    id: round.id,
    seq: round.seq,
    sessionId: round.sessionId,
    timestamp: round.timestamp,
    user: round.user.text,
    assistant: round.assistant.text,
    ...(round.meta ? { meta: round.meta } : {}),
  }));
  expect(seen).toEqual(rounds);
}

describe('an encrypted memory stored by vmem at 9402260', () => {
  it('opens with every round and its facts, and answers as that version did', async () => {
    const memory = await open(await copyOfFixture());
    expect(memory.size).toBe(expected.rounds.length);
    expect(memory.has('r6')).toBe(false);
    await expectAsStored(memory);
    for (const { question, rounds } of expected.answers) {
      expect((await memory.retrieve(question, { k: 3, neighbours: 0 })).blocks.flatMap((block) => block.rounds.map((round) => round.id)), question).toEqual(rounds);
    }
    // A filter reads the facts only (session, meta): those of a round changed after the cache too.
    const late = await memory.retrieve('Ada bicycle', { k: 5, filter: { sessionIds: ['s6'] } });
    expect(late.blocks.flatMap((block) => block.rounds.map((round) => round.id)).sort()).toEqual(['r300', 'r301']);
    await memory.close();
  });

  it('keeps opening after this version writes to it', async () => {
    const dir = await copyOfFixture();
    let memory = await open(dir);
    await memory.update('r7', { user: { text: 'Note 7: the harbour again, at dawn.' } });
    await memory.add({ id: 'r302', sessionId: 's6', timestamp: Date.UTC(2025, 0, 14), user: { text: 'Note 302: a new round after the upgrade.' }, assistant: { text: 'Reply 302.' } });
    await memory.close();
    memory = await open(dir);
    const rounds = expected.rounds.map((round) => (round.id === 'r7' ? { ...round, user: 'Note 7: the harbour again, at dawn.' } : round));
    const added = { id: 'r302', seq: 302, sessionId: 's6', timestamp: Date.UTC(2025, 0, 14), user: 'Note 302: a new round after the upgrade.', assistant: 'Reply 302.' };
    await expectAsStored(memory, [...rounds, added]);
    await memory.close();
  });
});
