/**
 * Writes `dist-app/precache.json`: every file the offline app and the drop-in example need, their
 * total size (so the service worker can tell a too-small quota before downloading anything), and a
 * version that changes whenever any of them does, so the service worker replaces its cache on deploy.
 *
 * The drop-in folder repeats the app's model files byte for byte under other names; those become
 * `aliases` (drop-in path → app path) and are cached once. What only the drop-in has (its script
 * and worker) is cached like the app's own files.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { isPrecompressedCopy } from './compress.js';

/** `precache.json`, as the service worker reads it. */
export interface PrecacheManifest {
  readonly version: string;
  /** Paths relative to the service worker's folder; `./` is the app's start page. */
  readonly urls: readonly string[];
  /** Bytes of all files in `urls`. */
  readonly bytes: number;
  /** Drop-in paths served from the identical app file they map to. */
  readonly aliases: Readonly<Record<string, string>>;
}

const EXCLUDED = [
  /^bench\.html$/,
  /^assets\/bench-/,
  // The optional runtimes: onnxruntime-web's full build (WebGPU, the hub encoders), transformers.js,
  // WebLLM, in the app and in the drop-in's worker folder. The service worker caches them on first
  // use instead. The WASM-only build the embedded encoders start on is precached.
  /(^|\/)ort-wasm-simd-threaded\.jsep/,
  /^assets\/(hub|web-llm|ort-full)-/,
  /^dropin\/chunks\/(hub|transformers\.web|ort\.bundle\.min)-/,
  // The drop-in example page loads the classic script; the module build is for other sites.
  /^dropin\/vmem\.mjs$/,
  // Read by people, never fetched by the app.
  /(^|\/)LICENSES\.md$/,
  /^precache\.json$/,
  /^sw\.js$/,
  /\.map$/,
];

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? listFiles(join(folder, entry.name)) : Promise.resolve([join(folder, entry.name)]))));
  return nested.flat();
}

/** Builds the precache manifest for `outDir` and writes it; returns the number of files and bytes. */
export async function writePrecache(outDir: string, skip: readonly RegExp[] = []): Promise<{ files: number; bytes: number }> {
  const files: { path: string; bytes: Buffer; digest: string }[] = [];
  for (const file of (await listFiles(outDir)).sort()) {
    const path = relative(outDir, file).split(sep).join('/');
    // A `.br`/`.gz` copy is the same file on the wire; the service worker stores the file once.
    if ([...EXCLUDED, ...skip].some((pattern) => pattern.test(path)) || isPrecompressedCopy(file)) continue;
    const bytes = await readFile(file);
    files.push({ path, bytes, digest: createHash('sha256').update(bytes).digest('hex') });
  }
  const appFileOf = new Map(files.filter((file) => !file.path.startsWith('dropin/')).map((file) => [file.digest, file.path]));
  const urls = ['./'];
  const aliases: Record<string, string> = {};
  const version = createHash('sha256');
  let bytes = 0;
  for (const file of files) {
    version.update(file.path).update(file.digest);
    const twin = file.path.startsWith('dropin/') ? appFileOf.get(file.digest) : undefined;
    if (twin !== undefined) {
      aliases[file.path] = twin;
      continue;
    }
    urls.push(file.path);
    bytes += file.bytes.length;
  }
  const manifest: PrecacheManifest = { version: version.digest('hex').slice(0, 16), urls, bytes, aliases };
  await writeFile(join(outDir, 'precache.json'), JSON.stringify(manifest, null, 1));
  return { files: urls.length - 1, bytes };
}
