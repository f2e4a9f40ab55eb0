// @ts-nocheck -- type-checked where it runs: inside f68ba58's sources (its imports do not exist in this checkout).
/**
 * Run by generate.ts inside f68ba58's extracted sources (never in this checkout): writes one memory
 * with that version's file store and one with its IndexedDB store, and what that version answered.
 */
import 'fake-indexeddb/auto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDB } from 'idb';
import { createMemory } from './src/memory/memory.js';
import { createFileStorage } from './src/storage/file-storage.js';
import { createIdbStorage, DATABASE_PREFIX } from './src/storage/idb.js';
import { createHashTextEncoder } from './src/testing/hash-encoder.js';
import { syntheticImageEncoder } from './src/testing/synthetic-rounds.js';

const out = join(process.argv[2]!, 'out');
mkdirSync(out, { recursive: true });
const QUESTIONS = ['where did Ada park the red bicycle?', 'photo of the harbour at dusk', 'what did the plumber say on Tuesday?'];

/** A PNG's signature and then bytes that tell the pictures apart (f68ba58 stored whatever it was given). */
export function pictureBytes(index: number): Uint8Array {
  return Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 24 + index }, (_, i) => (i * 31 + index) & 0xff)]);
}

/** 40 rounds in 4 sessions, every 5th with a picture (bytes and a caption). */
function rounds() {
  const topics = ['the red bicycle parked by the library', 'the harbour at dusk with two boats', 'the plumber coming on Tuesday', 'a lemon cake for the party'];
  return Array.from({ length: 40 }, (_, index) => ({
    id: `r${index}`,
    sessionId: `s${Math.floor(index / 10)}`,
    timestamp: Date.UTC(2025, 0, 1) + index * 3_600_000,
    user: {
      text: `Note ${index}: Ada talked about ${topics[index % 4]} (item ${index}).`,
      ...(index % 5 === 0 ? { images: [{ id: `img${index}`, bytes: pictureBytes(index), mimeType: 'image/png', caption: `picture ${index} of ${topics[index % 4]}` }] } : {}),
    },
    assistant: { text: `Reply ${index}: noted about ${topics[(index + 1) % 4]}.` },
  }));
}

async function fill(storage: Parameters<typeof createMemory>[0]['storage']) {
  const memory = await createMemory({ textEncoder: createHashTextEncoder(), imageEncoder: syntheticImageEncoder(8), storage });
  const all = rounds();
  await memory.add(all.slice(0, 25));
  await memory.add(all.slice(25));
  await memory.forget('r7');
  await memory.setCaption('img10', 'the harbour at dusk, a new caption');
  const answers = [];
  for (const question of QUESTIONS) answers.push({ question, rounds: (await memory.retrieve(question, { llmAnchors: false })).trace.map((entry) => entry.roundId) });
  const stored = memory.rounds();
  await memory.close();
  return { rounds: stored, answers };
}

const fileStore = join(out, 'file-store');
const fromFiles = await fill(await createFileStorage(fileStore));
const fromIdb = await fill(await createIdbStorage('f68ba58'));

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const db = await openDB(DATABASE_PREFIX + 'f68ba58');
const dump: Record<string, unknown[]> = {};
for (const store of db.objectStoreNames) {
  const records = await db.getAll(store);
  dump[store] = await Promise.all(
    records.map(async (record: Record<string, unknown>) => {
      const copy: Record<string, unknown> = { ...record };
      if (copy['vectors'] instanceof Blob) copy['vectors'] = { blob: base64(new Uint8Array(await copy['vectors'].arrayBuffer())) };
      if (copy['bytes'] instanceof Uint8Array) copy['bytes'] = { bytes: base64(copy['bytes']) };
      return copy;
    }),
  );
}
writeFileSync(join(out, 'idb.json'), `${JSON.stringify({ version: db.version, stores: dump })}\n`);
db.close();
writeFileSync(join(out, 'expected.json'), `${JSON.stringify({ questions: QUESTIONS, fileStore: fromFiles, indexedDb: fromIdb }, null, 1)}\n`);
