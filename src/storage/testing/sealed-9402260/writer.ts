// @ts-nocheck -- type-checked where it runs: inside 9402260's sources (its imports may differ from this checkout's).
/**
 * Run by generate.ts inside 9402260's extracted sources (never in this checkout): writes one
 * encrypted memory with that version's file store, so that both ways it found a round's facts are
 * in it: 300 rounds in its facts cache (written with their add), and rounds written after the cache
 * (an edit, a new round), whose facts only their own sealed record holds; one round forgotten.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMemory } from './src/memory/memory.js';
import { createFileStorage } from './src/node.js';
import { createHashTextEncoder } from './src/testing/hash-encoder.js';

const out = join(process.argv[2]!, 'out');
mkdirSync(out, { recursive: true });
const PASSPHRASE = 'fixture passphrase 9402260';
const QUESTIONS = ['where did Ada park the red bicycle?', 'the harbour at dusk', 'what did the plumber say on Tuesday?'];
const topics = ['the red bicycle parked by the library', 'the harbour at dusk with two boats', 'the plumber coming on Tuesday', 'a lemon cake for the party'];
const round = (index: number) => ({
  id: `r${index}`,
  sessionId: `s${Math.floor(index / 50)}`,
  timestamp: Date.UTC(2025, 0, 1) + index * 3_600_000,
  user: { text: `Note ${index}: Ada talked about ${topics[index % 4]} (item ${index}).` },
  assistant: { text: `Reply ${index}: noted about ${topics[(index + 1) % 4]}.` },
  ...(index % 7 === 0 ? { meta: { topic: topics[index % 4]!.split(' ')[1]!, index } } : {}),
});

const dir = join(out, 'file-store');
const open = async () => createMemory({ textEncoder: createHashTextEncoder(), storage: await createFileStorage(dir, { encryption: { passphrase: PASSPHRASE } }), retrieval: { llmAnchors: false } });
let memory = await open();
await memory.add(Array.from({ length: 300 }, (_, index) => round(index)));
await memory.close();
memory = await open();
await memory.update('r5', { user: { text: 'Note 5: Ada moved the red bicycle to the station.' } });
await memory.forget('r6');
await memory.add([round(300), round(301)]);
await memory.close();
memory = await open();
// What a reader sees of each round (its texts and facts), kept small.
const rounds = (await memory.rounds()).map((r) => ({ id: r.id, seq: r.seq, sessionId: r.sessionId, timestamp: r.timestamp, user: r.user.text, assistant: r.assistant.text, ...(r.meta ? { meta: r.meta } : {}) }));
const answers = [];
for (const question of QUESTIONS) answers.push({ question, rounds: (await memory.retrieve(question, { k: 3, neighbours: 0 })).blocks.flatMap((block) => block.rounds.map((r) => r.id)) });
await memory.close();
writeFileSync(join(out, 'expected.json'), JSON.stringify({ passphrase: PASSPHRASE, rounds, answers }));
