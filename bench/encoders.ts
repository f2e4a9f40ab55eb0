import { createHubTextEncoder } from 'vmem/hub';
import { createNodeEmbeddedEncoders, loadNodeWordVectors } from 'vmem/node';
import type { BenchArgs } from './cli-args.js';
import type { LoadedTextEncoder } from './command.js';

/**
 * The text encoder `--encoders` names: `embedded` is USE-Lite from node_modules (offline; with
 * `--text-workers` > 1 it runs in a worker pool), `hub` is all-MiniLM-L6-v2 through transformers.js
 * from the Hugging Face hub or `--hub-url`. The image lane is always caption-proxy here, so no image
 * model is loaded.
 */
export async function loadBenchTextEncoder(args: BenchArgs): Promise<LoadedTextEncoder> {
  const wordVectors = await loadNodeWordVectors();
  if (args.encoders === 'hub') {
    const encoder = await createHubTextEncoder(args.hubUrl !== undefined ? { remoteHost: args.hubUrl } : {});
    return { encoder, wordVectors, dispose: () => encoder.dispose?.() ?? Promise.resolve() };
  }
  const { text } = createNodeEmbeddedEncoders({ image: 'none', textThreads: args.textWorkers });
  await text.load();
  return { encoder: text, wordVectors, dispose: () => text.dispose?.() ?? Promise.resolve() };
}
