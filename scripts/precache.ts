/**
 * Writes `dist-app/precache.json`: every file the offline app needs, plus a version that changes
 * whenever any of them does, so the service worker replaces its cache on deploy.
 * The drop-in folder is left out: it is for other sites, and repeats the model files.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

const EXCLUDED = [
  /^dropin\//,
  /^bench\.html$/,
  /^assets\/bench-/,
  // Only the hub encoders use onnxruntime-web; the service worker caches it on first use instead.
  /^assets\/ort-wasm/,
  /^assets\/hub-/,
  /^precache\.json$/,
  /^sw\.js$/,
  /\.map$/,
];

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? listFiles(join(folder, entry.name)) : Promise.resolve([join(folder, entry.name)]))));
  return nested.flat();
}

/** Builds the precache list for `outDir` and writes it; returns the number of files and bytes. */
export async function writePrecache(outDir: string, skip: readonly RegExp[] = []): Promise<{ files: number; bytes: number }> {
  const hash = createHash('sha256');
  const urls: string[] = ['./'];
  let bytes = 0;
  for (const file of (await listFiles(outDir)).sort()) {
    const path = relative(outDir, file).split(sep).join('/');
    if ([...EXCLUDED, ...skip].some((pattern) => pattern.test(path))) continue;
    urls.push(path);
    const info = await stat(file);
    bytes += info.size;
    hash.update(path).update(await readFile(file));
  }
  const version = hash.digest('hex').slice(0, 16);
  await writeFile(join(outDir, 'precache.json'), JSON.stringify({ version, urls }, null, 1));
  return { files: urls.length - 1, bytes };
}
