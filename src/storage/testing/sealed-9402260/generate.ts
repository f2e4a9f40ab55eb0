/**
 * Writes the fixture of an encrypted memory as vmem stored it at commit 9402260 (each round's facts
 * sealed in its own record, the facts cache as one JSON list), with that commit's own code:
 * `npx tsx src/storage/testing/sealed-9402260/generate.ts`.
 *
 * It runs `writer.ts` with 9402260's sources (`writeFixtureFromCommit`), and copies what it wrote here:
 * - `file-store/`: the folder 9402260's `createFileStorage` wrote, locked with the passphrase in `expected.json`;
 * - `expected.json`: the passphrase, the rounds as 9402260's memory returned them, and its answers to a few questions.
 */
import { writeFixtureFromCommit } from '../fixture-from-commit.js';

writeFixtureFromCommit('9402260', import.meta.dirname, ['expected.json']);
