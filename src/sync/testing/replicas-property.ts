/**
 * The property behind the sync tests and `npm run bench:sync`: three devices make concurrent adds,
 * updates and forgets, go offline and back, restart (closing their file-store memory and reopening
 * it, with a LevelDB replica), while the server may restart too. After everyone syncs online, every
 * device holds the same rounds with the same texts: none lost, none twice, no forgotten round back,
 * and the same top 10 for the same questions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createMemory, type Memory } from 'vmem';
import { createFileStorage } from 'vmem/node';
import { createHashTextEncoder } from '../../testing/hash-encoder.js';
import type { TestSyncServer } from './server.js';

export type Op =
  | { readonly kind: 'add'; readonly device: number; readonly count: number }
  | { readonly kind: 'update'; readonly device: number; readonly pick: number; readonly word: number }
  | { readonly kind: 'forget'; readonly device: number; readonly pick: number }
  | { readonly kind: 'sync'; readonly device: number }
  | { readonly kind: 'offline' | 'online' | 'restart'; readonly device: number }
  | { readonly kind: 'restart-server' };

const device = fc.integer({ min: 0, max: 2 });
export const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('add' as const), device, count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('update' as const), device, pick: fc.nat(), word: fc.nat({ max: 50 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), device, pick: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('sync' as const), device }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('offline' as const, 'online' as const, 'restart' as const), device }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart-server' as const }) },
);

const WORDS = ['zebra', 'garden', 'walrus', 'coffee', 'harbour', 'violin', 'lantern', 'meadow', 'piano', 'glacier'];
const QUESTIONS = ['zebra garden', 'walrus coffee harbour', 'violin lantern', 'meadow piano glacier'];

interface Device {
  readonly dir: string;
  memory: Memory;
  online: boolean;
}

async function openDevice(dir: string): Promise<Memory> {
  return createMemory({ textEncoder: createHashTextEncoder(), storage: await createFileStorage(dir) });
}

/** Runs one sequence of operations and checks the end state; throws what differs. */
export async function runScenario(ops: readonly Op[], server: TestSyncServer, db: string): Promise<void> {
  const url = server.url(db);
  const devices: Device[] = [];
  for (let i = 0; i < 3; i++) {
    const dir = await mkdtemp(join(tmpdir(), `vmem-sync-prop-${i}-`));
    devices.push({ dir, memory: await openDevice(dir), online: true });
  }
  const sync = (d: Device) => d.memory.sync({ url: d.online ? url : 'http://127.0.0.1:5489/offline', replica: join(d.dir, 'replica') }).done;
  const forgotten = new Set<string>();
  let next = 0;
  try {
    for (const op of ops) {
      if (op.kind === 'restart-server') {
        await server.kill();
        await server.restart();
        continue;
      }
      const d = devices[op.device]!;
      if (op.kind === 'add') {
        const rounds = Array.from({ length: op.count }, () => {
          const n = next++;
          return { id: `r${n}`, timestamp: 1_700_000_000_000 + n * 60_000, user: { text: `${WORDS[n % 10]} ${WORDS[(n * 3) % 10]} number${n}` }, assistant: { text: `reply ${WORDS[(n * 7) % 10]}` } };
        });
        await d.memory.add(rounds);
      } else if (op.kind === 'update' || op.kind === 'forget') {
        const held = (await d.memory.rounds()).map((round) => round.id);
        if (held.length === 0) continue;
        const id = held[op.pick % held.length]!;
        if (op.kind === 'update') await d.memory.update(id, { user: { text: `${WORDS[op.word % 10]} edited ${op.word} of ${id}` } });
        else {
          await d.memory.forget(id);
          forgotten.add(id);
        }
      } else if (op.kind === 'sync') {
        await sync(d).catch((error: { code?: string }) => {
          if (d.online || error.code !== 'SYNC_UNREACHABLE') throw error;
        });
      } else if (op.kind === 'offline' || op.kind === 'online') {
        d.online = op.kind === 'online';
      } else {
        await d.memory.close();
        d.memory = await openDevice(d.dir);
      }
    }
    for (const d of devices) d.online = true;
    // Three rounds of everyone syncing carry every change to every device.
    for (let round = 0; round < 3; round++) for (const d of devices) await sync(d);
    const states = await Promise.all(devices.map(async (d) => (await d.memory.rounds()).map((round) => `${round.id}:${round.user.text}:${round.assistant.text}`).sort()));
    const ids = states.map((state) => state.map((entry) => entry.split(':')[0]!));
    for (const [at, state] of states.entries()) {
      if (new Set(ids[at]).size !== ids[at]!.length) throw new Error(`device ${at} holds a round twice: ${ids[at]!.join(', ')}`);
      if (JSON.stringify(state) !== JSON.stringify(states[0])) throw new Error(`device ${at} differs from device 0:\n${state.join('\n')}\nvs\n${states[0]!.join('\n')}`);
    }
    const back = ids[0]!.filter((id) => forgotten.has(id));
    if (back.length > 0) throw new Error(`forgotten rounds came back: ${back.join(', ')}`);
    const added = Array.from({ length: next }, (_, n) => `r${n}`).filter((id) => !forgotten.has(id));
    const lost = added.filter((id) => !ids[0]!.includes(id));
    if (lost.length > 0) throw new Error(`rounds lost: ${lost.join(', ')}`);
    if (ids[0]!.length > 0) {
      for (const question of QUESTIONS) {
        const tops = await Promise.all(devices.map(async (d) => (await d.memory.retrieve(question)).trace.slice(0, 10).map((entry) => entry.roundId).join(',')));
        if (new Set(tops).size !== 1) throw new Error(`top 10 for "${question}" differs: ${tops.join(' | ')}`);
      }
    }
  } finally {
    for (const d of devices) {
      await d.memory.close().catch(() => undefined);
      await rm(d.dir, { recursive: true, force: true });
    }
  }
}

/** fast-check over `runs` random scenarios; resolves with how long it took. */
export async function checkSyncProperty(server: TestSyncServer, options: { runs: number; seed: number; maxOps: number }): Promise<number> {
  const started = performance.now();
  let db = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(opArbitrary, { minLength: 4, maxLength: options.maxOps }), (ops) => runScenario(ops, server, `prop-${options.seed}-${++db}`)),
    { numRuns: options.runs, seed: options.seed, endOnFailure: true },
  );
  return performance.now() - started;
}
