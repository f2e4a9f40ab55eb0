/**
 * Test-only: a second process over a memory folder, for the file store's lock and crash tests.
 *   hold <dir>                      open the folder, print "ready", keep it until stdin ends
 *   add <dir> <first> <count> <photos|text>
 *                                   add rounds first…first+count-1 in one call, print "done"
 */
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
} else {
  throw new Error(`unknown mode ${mode}`);
}
