/**
 * Writes the fixtures of a memory stored by vmem at commit f68ba58 (the last version before index
 * segments), with that commit's own code: `npx tsx src/storage/testing/f68ba58/generate.ts`.
 *
 * It runs `writer.ts` with f68ba58's sources (`writeFixtureFromCommit`), and copies what it wrote here:
 * - `file-store/`: the folder f68ba58's `createFileStorage` wrote (its round log with float32 vectors);
 * - `idb.json`: every record of the IndexedDB database f68ba58's `createIdbStorage` wrote (on
 *   fake-indexeddb; Blob and byte values in base64), to load into a fresh database as it was;
 * - `expected.json`: the rounds as f68ba58's memory returned them, and its answers to a few questions.
 */
import { writeFixtureFromCommit } from '../fixture-from-commit.js';

writeFixtureFromCommit('f68ba58', import.meta.dirname, ['idb.json', 'expected.json']);
