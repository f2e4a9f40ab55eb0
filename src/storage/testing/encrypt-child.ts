/**
 * Test-only: encrypts a memory folder in place in a process of its own, printing `progress <rounds>`
 * after each batch, so a test can kill it part-way.
 *   <dir> <passphrase>
 */
import { encryptMemoryFolder } from 'vmem/node';

const [dir, passphrase] = process.argv.slice(2);
await encryptMemoryFolder(dir!, { passphrase: passphrase! }, {
  onProgress: (event) => {
    if (event.status === 'progress') process.stdout.write(`progress ${event.loaded}\n`);
  },
});
process.stdout.write('done\n');
