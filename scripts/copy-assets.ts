/**
 * Copies the photos of the demo's sample conversation (app/sample-conversation.ts) from the test
 * fixtures into `public/samples/` (gitignored), and writes the embedded models as ONNX into
 * `models/` (`convert-models.ts`, also gitignored). Run before `vite build` / `vite dev`; it only
 * writes files that changed. (The model files need no copy: the worker names each one with
 * `new URL(…, import.meta.url)` and Vite emits them.)
 */
import { copyFile, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SAMPLE_PHOTOS } from '../app/sample-conversation.js';
import { FIXTURE_PHOTOS_DIR } from '../src/testing/shared-data.js';
import { convertModels } from './convert-models.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

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

/**
 * Copies the sample conversation's photos into `public/samples/`, removes photos it no longer uses
 * (they would be precached), and converts the models into `models/`.
 */
export async function copyAssets(): Promise<void> {
  const to = join(root, 'public/samples');
  await mkdir(to, { recursive: true });
  let copied = 0;
  for (const name of SAMPLE_PHOTOS) if (await copyChanged(join(FIXTURE_PHOTOS_DIR, name), join(to, name))) copied += 1;
  const unused = (await readdir(to)).filter((name) => !SAMPLE_PHOTOS.includes(name));
  for (const name of unused) await rm(join(to, name));
  const converted = await convertModels();
  console.log(`copy-assets: ${copied} photo(s) updated, ${unused.length} unused removed under public/samples/, ${converted} model(s) converted into models/`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await copyAssets();
