/**
 * Copies the sample photos the demo serves into `public/samples/` (gitignored).
 * Run before `vite build` / `vite dev`; it only copies files that changed. (The model files need
 * no copy: the worker names each one with `new URL(…, import.meta.url)` and Vite emits them.)
 */
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURE_PHOTOS_DIR } from '../src/testing/shared-data.js';

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

/** Copies the sample photos into `public/samples/`. */
export async function copyAssets(): Promise<void> {
  const to = join(root, 'public/samples');
  await mkdir(to, { recursive: true });
  let copied = 0;
  for (const name of SAMPLE_PHOTOS) if (await copyChanged(join(FIXTURE_PHOTOS_DIR, name), join(to, name))) copied += 1;
  console.log(`copy-assets: ${copied} file(s) updated under public/samples/`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await copyAssets();
