import { mkdir, readFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VmemError } from 'vmem';

/** Where `--cache-vectors` keeps text vectors unless `--cache-dir` says otherwise. */
export const DEFAULT_VECTOR_CACHE_DIR = 'node_modules/.cache/vmem-bench';

/**
 * Text vectors of one encoder kept on disk between runs, so a rebuild embeds only texts it has not
 * seen. Keyed by the encoder's id and dimension (one file each) and by the exact text.
 */
export interface VectorCache {
  readonly file: string;
  /** Vectors read from disk when the cache was opened. */
  readonly loaded: number;
  get(text: string): Float32Array | undefined;
  /** Remembers a vector; `flush` writes what was added since the last flush. */
  put(text: string, vector: Float32Array): void;
  flush(): Promise<void>;
}

/*
 * File format: records back to back, each a little-endian u32 byte length, the text in UTF-8, then
 * `dimension` float32 values. New records are appended, so an interrupted run loses only its own.
 */

/** Opens (or starts) the cache file of an encoder under `dir`. */
export async function openVectorCache(dir: string, encoderId: string, dimension: number): Promise<VectorCache> {
  const file = join(dir, `${encoderId.replace(/[^A-Za-z0-9._-]+/g, '_')}-${dimension}.vectors`);
  const vectors = new Map<string, Float32Array>();
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (bytes) readRecords(bytes, dimension, file, vectors);
  const loaded = vectors.size;
  let pending: { text: string; vector: Float32Array }[] = [];
  return {
    file,
    loaded,
    get: (text) => vectors.get(text),
    put(text, vector) {
      if (vector.length !== dimension) {
        throw new VmemError('INVALID_INPUT', `Vector cache ${file} holds ${dimension}-d vectors; got one of ${vector.length}.`);
      }
      if (vectors.has(text)) return;
      vectors.set(text, vector.slice());
      pending.push({ text, vector });
    },
    async flush() {
      if (pending.length === 0) return;
      const records = pending;
      pending = [];
      await mkdir(dir, { recursive: true });
      await appendFile(file, encodeRecords(records, dimension));
    },
  };
}

function readRecords(bytes: Buffer, dimension: number, file: string, into: Map<string, Float32Array>): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  let at = 0;
  while (at < bytes.byteLength) {
    const length = at + 4 <= bytes.byteLength ? view.getUint32(at, true) : -1;
    const end = at + 4 + length + dimension * 4;
    // A record cut short by an interrupted write is dropped with everything after it.
    if (length < 0 || end > bytes.byteLength) break;
    const text = decoder.decode(bytes.subarray(at + 4, at + 4 + length));
    const vector = new Float32Array(dimension);
    for (let i = 0; i < dimension; i++) vector[i] = view.getFloat32(at + 4 + length + i * 4, true);
    into.set(text, vector);
    at = end;
  }
  if (into.size === 0 && bytes.byteLength > 0) {
    throw new VmemError('INVALID_INPUT', `Vector cache ${file} is not a ${dimension}-d cache; delete it and run again.`);
  }
}

function encodeRecords(records: readonly { text: string; vector: Float32Array }[], dimension: number): Uint8Array {
  const encoder = new TextEncoder();
  const texts = records.map((record) => encoder.encode(record.text));
  const out = new Uint8Array(texts.reduce((sum, text) => sum + 4 + text.byteLength + dimension * 4, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  records.forEach((record, i) => {
    const text = texts[i]!;
    view.setUint32(at, text.byteLength, true);
    out.set(text, at + 4);
    at += 4 + text.byteLength;
    for (let d = 0; d < dimension; d++) view.setFloat32(at + d * 4, record.vector[d]!, true);
    at += dimension * 4;
  });
  return out;
}
