import { VmemError } from '../errors.js';

/** What the encoders need from a fetch response. The global `Response` fits. */
export interface AssetResponse {
  readonly ok: boolean;
  readonly status: number;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** The body as a stream, when the response has one: read in chunks so progress can be told. */
  readonly body?: ReadableStream<Uint8Array> | null;
  readonly headers?: { get(name: string): string | null };
}

/**
 * Fetches one model file. Browsers pass `fetch` (or a wrapper that adds caching or auth);
 * Node passes a file reader (see `node-assets.ts`).
 * @example const fetchAsset: FetchAsset = (url) => fetch(url)
 */
export type FetchAsset = (url: string) => Promise<AssetResponse>;

/** The platform `fetch`, bound, or a function that explains what to pass when there is none. */
export function defaultFetch(): FetchAsset {
  const platformFetch = (globalThis as { fetch?: FetchAsset }).fetch;
  if (platformFetch === undefined) {
    return async (url) => {
      throw new VmemError('MODEL_LOAD_FAILED', `No fetch() here to load ${url}; pass a \`fetch\` option that reads model files.`);
    };
  }
  return (url) => platformFetch(url);
}

/**
 * Reads one file as bytes. Rejects with `MODEL_LOAD_FAILED` naming the file and the HTTP status or cause.
 * @param what Human name of the file for the message, e.g. 'USE-Lite weights'.
 * @param onBytes Called as chunks arrive, when the response streams and says its length.
 */
export async function fetchBytes(fetchAsset: FetchAsset, url: string, what: string, onBytes?: (loaded: number, total: number) => void): Promise<Uint8Array> {
  let response: AssetResponse;
  try {
    response = await fetchAsset(url);
  } catch (cause) {
    if (cause instanceof VmemError) throw cause;
    throw new VmemError('MODEL_LOAD_FAILED', `Could not load ${what} from ${url}: ${String(cause)}. Check that the file is served at that address.`, { cause });
  }
  if (!response.ok) {
    throw new VmemError('MODEL_LOAD_FAILED', `Could not load ${what} from ${url}: HTTP ${response.status}. Check that the file is served at that address.`);
  }
  const total = Number(response.headers?.get('content-length') ?? Number.NaN);
  if (onBytes === undefined || !response.body || !(total > 0)) return new Uint8Array(await response.arrayBuffer());
  try {
    return await readStream(response.body, total, onBytes);
  } catch (cause) {
    throw new VmemError('MODEL_LOAD_FAILED', `Loading ${what} from ${url} broke off: ${String(cause)}.`, { cause });
  }
}

/** Reads a body of `total` bytes chunk by chunk (a compressed body may end up longer). */
async function readStream(body: ReadableStream<Uint8Array>, total: number, onBytes: (loaded: number, total: number) => void): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    chunks.push(chunk.value);
    loaded += chunk.value.byteLength;
    onBytes(Math.min(loaded, total), total);
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Reads one file as JSON; a parse failure is `MODEL_LOAD_FAILED` naming the file. */
export async function fetchJson<T>(fetchAsset: FetchAsset, url: string, what: string): Promise<T> {
  const bytes = await fetchBytes(fetchAsset, url, what);
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  } catch (cause) {
    throw new VmemError('MODEL_LOAD_FAILED', `${what} at ${url} is not valid JSON (${String(cause)}); the file is damaged or is not ${what}.`, { cause });
  }
}

/**
 * The address of `name` next to `base` (a URL or a file path): 'a/b/model.json' + 'vocab.json' → 'a/b/vocab.json'.
 */
export function siblingOf(base: string, name: string): string {
  return base.slice(0, base.lastIndexOf('/') + 1) + name;
}
