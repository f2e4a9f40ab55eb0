/**
 * Precompressed copies of a built site: `<file>.br` (brotli) and `<file>.gz` (gzip) beside every file
 * worth compressing, for `npm start` (vite.config.ts `compressedFiles`) or any static host that serves
 * such siblings (nginx `brotli_static`/`gzip_static`, Caddy `precompressed`). A copy is written only
 * when it saves at least 5 %: int8 weights, JPEGs and the gzipped OCR model are left alone.
 * Brotli runs at its highest quality: the copies are written once per file and served on every
 * visit. That takes about three minutes of CPU for the model files and the WASM binary, so each copy is
 * kept in `node_modules/.cache/` under the hash of its input and of the settings, and reused by the
 * next build; identical files (the drop-in folder repeats the app's model files) are compressed once.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const root = resolve(import.meta.dirname, '..');
const CACHE = join(root, 'node_modules/.cache/vmem-compressed');
/** What is worth compressing: code, text, WebAssembly, model weights. */
export const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.webmanifest', '.svg', '.md', '.wasm', '.onnx', '.bin']);
const MIN_BYTES = 1024;
/** A copy must be at most this share of the original to be kept. */
const WORTH_IT = 0.95;
/** The encodings written, in the order a server prefers them. */
export const ENCODINGS = [
  { name: 'br', extension: '.br' },
  { name: 'gzip', extension: '.gz' },
] as const;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Brotli at quality 11 with the largest window browsers decode (2^24 bytes): against quality 9 it
 * saves about 0.9 MB over a first visit's files (0.37 MB on the WASM binary, 0.2 MB on CenterNet).
 */
const BROTLI = { quality: 11, window: 24 } as const;
const GZIP_LEVEL = 9;
/** Part of a cached copy's name, so a change of settings compresses afresh. */
const SETTINGS = { br: `q${BROTLI.quality}w${BROTLI.window}`, gzip: `l${GZIP_LEVEL}` } as const;

function compress(encoding: (typeof ENCODINGS)[number]['name'], bytes: Buffer): Promise<Buffer> {
  if (encoding === 'gzip') return gzipAsync(bytes, { level: GZIP_LEVEL });
  return brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI.quality, [constants.BROTLI_PARAM_LGWIN]: BROTLI.window, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
}

/** Copies read or written by this process, by cache file: identical inputs share one compression. */
const copies = new Map<string, Promise<Buffer>>();

/** The `encoding` copy of `bytes` (hash `digest`), from the cache or compressed and cached. */
function cachedCopy(encoding: (typeof ENCODINGS)[number], bytes: Buffer, digest: string): Promise<Buffer> {
  const cached = join(CACHE, `${digest}-${SETTINGS[encoding.name]}${encoding.extension}`);
  let copy = copies.get(cached);
  if (copy === undefined) {
    copy = existsSync(cached)
      ? readFile(cached)
      : compress(encoding.name, bytes).then(async (written) => {
          await writeFile(cached, written);
          return written;
        });
    copies.set(cached, copy);
  }
  return copy;
}

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? listFiles(join(folder, entry.name)) : Promise.resolve([join(folder, entry.name)]))));
  return nested.flat();
}

/** Whether `path` is a precompressed copy this module wrote (its original is beside it). */
export function isPrecompressedCopy(path: string): boolean {
  return ENCODINGS.some(({ extension }) => path.endsWith(extension) && COMPRESSIBLE.has(extname(path.slice(0, -extension.length))) && existsSync(path.slice(0, -extension.length)));
}

/** Writes the compressed copies under `folder`; returns how many were written and the bytes saved by brotli. */
export async function precompress(folder: string): Promise<{ files: number; savedBytes: number }> {
  await mkdir(CACHE, { recursive: true });
  let files = 0;
  let savedBytes = 0;
  const originals = (await listFiles(folder)).filter((file) => COMPRESSIBLE.has(extname(file)) && !isPrecompressedCopy(file));
  await Promise.all(
    originals.map(async (file) => {
      if ((await stat(file)).size < MIN_BYTES) return;
      const bytes = await readFile(file);
      const digest = createHash('sha256').update(bytes).digest('hex');
      for (const encoding of ENCODINGS) {
        const copy = await cachedCopy(encoding, bytes, digest);
        if (copy.length > bytes.length * WORTH_IT) continue;
        await writeFile(file + encoding.extension, copy);
        files += 1;
        if (encoding.name === 'br') savedBytes += bytes.length - copy.length;
      }
    }),
  );
  return { files, savedBytes };
}
