/**
 * Writes the fixtures of a memory stored by vmem at commit f68ba58 (the last version before index
 * segments), with that commit's own code: `npx tsx src/storage/testing/f68ba58/generate.ts`.
 *
 * It extracts f68ba58's sources with `git archive` into a temporary folder (next to this checkout's
 * node_modules), runs `writer.ts` there, and copies what it wrote here:
 * - `file-store/`: the folder f68ba58's `createFileStorage` wrote (its round log with float32 vectors);
 * - `idb.json`: every record of the IndexedDB database f68ba58's `createIdbStorage` wrote (on
 *   fake-indexeddb; Blob and byte values in base64), to load into a fresh database as it was;
 * - `expected.json`: the rounds as f68ba58's memory returned them, and its answers to a few questions.
 * The fixtures are committed, so the tests need no git history (CI may clone shallow).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const COMMIT = 'f68ba58';
const here = resolve(import.meta.dirname);
const repo = resolve(here, '../../../..');
const work = mkdtempSync(join(tmpdir(), `vmem-${COMMIT}-`));
try {
  const archive = execFileSync('git', ['archive', COMMIT, 'src', 'package.json', 'tsconfig.json'], { cwd: repo, maxBuffer: 1 << 28 });
  execFileSync('tar', ['-x', '-C', work], { input: archive });
  symlinkSync(join(repo, 'node_modules'), join(work, 'node_modules'));
  cpSync(join(here, 'writer.ts'), join(work, 'writer.ts'));
  execFileSync(process.execPath, ['--import', 'tsx', join(work, 'writer.ts'), work], { cwd: work, stdio: 'inherit' });
  rmSync(join(here, 'file-store'), { recursive: true, force: true });
  cpSync(join(work, 'out', 'file-store'), join(here, 'file-store'), { recursive: true });
  for (const name of ['idb.json', 'expected.json']) cpSync(join(work, 'out', name), join(here, name));
  console.log(`wrote the ${COMMIT} fixtures to ${here}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
