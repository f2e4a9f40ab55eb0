/**
 * Writes a fixture with an older commit's own code: extracts that commit's sources with `git archive`
 * into a temporary folder (next to this checkout's node_modules), runs the fixture's `writer.ts` there,
 * and copies `out/file-store/` and the named files from `out/` into the fixture's folder. Fixtures are
 * committed, so the tests need no git history (CI may clone shallow).
 * @example writeFixtureFromCommit('f68ba58', import.meta.dirname, ['idb.json', 'expected.json'])
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export function writeFixtureFromCommit(commit: string, fixtureFolder: string, files: readonly string[]): void {
  const here = resolve(fixtureFolder);
  const repo = resolve(here, '../../../..');
  const work = mkdtempSync(join(tmpdir(), `vmem-${commit}-`));
  try {
    const archive = execFileSync('git', ['archive', commit, 'src', 'package.json', 'tsconfig.json'], { cwd: repo, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', work], { input: archive });
    symlinkSync(join(repo, 'node_modules'), join(work, 'node_modules'));
    cpSync(join(here, 'writer.ts'), join(work, 'writer.ts'));
    execFileSync(process.execPath, ['--import', 'tsx', join(work, 'writer.ts'), work], { cwd: work, stdio: 'inherit' });
    rmSync(join(here, 'file-store'), { recursive: true, force: true });
    cpSync(join(work, 'out', 'file-store'), join(here, 'file-store'), { recursive: true });
    for (const name of files) cpSync(join(work, 'out', name), join(here, name));
    console.log(`wrote the ${commit} fixture to ${here}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
