/**
 * `npm run bench -- --dataset memgallery|locomo --data PATH [options]` (see `--help` and README.md).
 * Configuration comes from flags only.
 */
import { createCaptionProxyImageEncoder, createMemory } from 'vmem';
import { runCommand } from './command.js';
import { loadBenchTextEncoder } from './encoders.js';

process.exitCode = await runCommand(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  loadTextEncoder: loadBenchTextEncoder,
  captionProxy: createCaptionProxyImageEncoder,
  createMemory,
});
