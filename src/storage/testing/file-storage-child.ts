/**
 * Test-only: a second process over a memory folder, for the file store's lock and crash tests.
 *   hold <dir>                      open the folder, print "ready", keep it until stdin ends
 *   add <dir> <first> <count> <photos|text>
 *                                   add rounds first…first+count-1 in one call, print "done"
 *   crash <dir> <first> <count> <writes> <point>
 *                                   add `writes` batches of `count` rounds from `first`, and die
 *                                   (SIGKILL, as a crash would) at `point` of the last batch's
 *                                   segment (`segment-written`: fully written aside, not yet renamed
 *                                   into place; `segment-renamed`: in place, not yet committed) or of
 *                                   the background merge that the batches start (`merge-written`,
 *                                   `merge-renamed`)
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { basename, dirname } from 'node:path';
import { createMemory } from 'vmem';
import { createFileStorage } from 'vmem/node';
import { createHashTextEncoder } from '../../testing/hash-encoder.js';
import { fixtureRounds } from './file-storage-fixture.js';

const [mode, dir, ...rest] = process.argv.slice(2);
if (mode === 'hold') {
  const storage = await createFileStorage(dir!);
  process.stdout.write('ready\n');
  process.stdin.resume();
  process.stdin.on('end', () => void storage.close().then(() => process.exit(0)));
} else if (mode === 'add') {
  const [first, count, kind] = rest;
  const memory = await createMemory({ textEncoder: createHashTextEncoder(), storage: await createFileStorage(dir!) });
  process.stdout.write('open\n');
  await memory.add(fixtureRounds(Number(first), Number(count), kind === 'photos'));
  process.stdout.write('done\n');
  await memory.close();
} else if (mode === 'crash') {
  const [first, count, writes, point] = rest;
  let armed = false;
  // Renames put written files in place: the one moment between "written" and "named by the log".
  const fs = createRequire(import.meta.url)('node:fs/promises') as typeof import('node:fs/promises');
  const rename = fs.rename;
  fs.rename = async (from, to) => {
    const isSegment = basename(dirname(String(to))) === 'segments';
    if (armed && isSegment && point!.endsWith('-written')) process.kill(process.pid, 'SIGKILL');
    await rename(from, to);
    if (armed && isSegment && point!.endsWith('-renamed')) process.kill(process.pid, 'SIGKILL');
  };
  syncBuiltinESMExports();
  const memory = await createMemory({ textEncoder: createHashTextEncoder(), storage: await createFileStorage(dir!) });
  process.stdout.write('open\n');
  for (let batch = 0; batch < Number(writes); batch++) {
    if (batch === Number(writes) - 1 && point!.startsWith('segment')) armed = true;
    await memory.add(fixtureRounds(Number(first) + batch * Number(count), Number(count), false));
  }
  armed = true;
  process.stdout.write('written\n');
  // The merge runs in the background now; a merge point kills the process during it.
  setTimeout(() => process.exit(3), 30_000);
} else {
  throw new Error(`unknown mode ${mode}`);
}
