/**
 * Writes the fixture of an encrypted memory as vmem stored it at commit 9402260 (each round's facts
 * sealed in its own record, the facts cache as one JSON list), with that commit's own code:
 * `npx tsx src/storage/testing/sealed-9402260/generate.ts`.
 *
 * It extracts 9402260's sources with `git archive` into a temporary folder (next to this checkout's
 * node_modules), runs `writer.ts` there, and copies what it wrote here:
 * - `file-store/`: the folder 9402260's `createFileStorage` wrote, locked with the passphrase in `expected.json`;
 * - `expected.json`: the passphrase, the rounds as 9402260's memory returned them, and its answers to a few questions.
 * The fixture is committed, so the tests need no git history (CI may clone shallow).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const COMMIT = '9402260';
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
  cpSync(join(work, 'out', 'expected.json'), join(here, 'expected.json'));
  console.log(`wrote the ${COMMIT} fixture to ${here}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
