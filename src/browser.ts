/**
 * vmem's browser entry: a named memory that persists in IndexedDB, with its encoders in a module
 * worker that ships in the package (WebGPU when an adapter passes the probe check, WASM otherwise).
 * It works on pages that are not cross-origin isolated: WASM then runs on one thread.
 * @example
 * import { openMemory } from 'vmem/browser';
 * const memory = await openMemory('alice');
 * await memory.add({ user: { text: 'My cat Miso sleeps on the radiator' } });
 * const { blocks } = await memory.retrieve('where does my cat sleep?');
 */
import type { Memory } from './memory/types.js';
import { VmemError, errorCode, isVmemError } from './errors.js';
import type { ImageDescriber } from './describe/types.js';
import type { ImageEmbedder, TextEmbedder } from './encoders/types.js';
import { browserImageResizer } from './images/browser-resize.js';
import type { ImageResizer } from './images/types.js';
import type { LlmProvider } from './llm/types.js';
import { exportMemory, type ExportOptions } from './memory/export.js';
import { createMemory } from './memory/memory.js';
import type { RetrievalOptions } from './options.js';
import type { ProgressCallback } from './progress.js';
import { encryptStorageInPlace, sealStorageKeeping, type EncryptedStorageControls } from './storage/encrypted-storage.js';
import { importMemory as importMemoryFile } from './storage/idb-file.js';
import { listenForChanges } from './storage/idb-sync.js';
import { assertMemoryName, createIdbStorage, deleteMemory as deleteStoredMemory, idbMemoryLabel, listMemories, type IdbMemoryStorage } from './storage/idb.js';
import { defaultReplicaName, replicaDatabaseName } from './sync/replica-name.js';
import { createInMemoryStorage } from './storage/memory-storage.js';
import type { Unlock } from './storage/sealer.js';
import type { MemoryStorage } from './storage/types.js';
import type { WordVectors } from './types.js';
import { createSerialQueue } from './util/serial-queue.js';
import { createBundledWorker } from './worker/bundled-worker.js';
import {
  chooseWasmThreads,
  type Backend,
  type EncoderCallCounts,
  type EncoderChoice,
  type EncoderWorkerInfo,
  type GpuCapability,
} from './worker/protocol.js';
import { startEncoders, type StartedEncoders } from './worker/start.js';

/** Options of `startBrowserEncoders`, and of `openMemory` when it starts the encoders itself. */
export interface BrowserEncodersOptions {
  /**
   * Which models the worker loads: `'embedded'` (USE-Lite text and MobileNetV2 image, shipped in the
   * package, nothing downloaded from elsewhere) or `'hub'` (MiniLM and SigLIP from the Hugging Face hub,
   * about 100 MB on first use).
   * @default 'embedded'
   */
  readonly encoders?: EncoderChoice;
  /**
   * Where the encoders' math runs. `'auto'` tries WebGPU when the browser has an adapter and the
   * encoders give the same vectors there as on WASM (a probe check), and falls back to WASM otherwise.
   * `'webgpu'` is `'auto'` without the shortcut to WASM; `'wasm'` never tries WebGPU.
   * @default 'auto'
   */
  readonly backend?: Backend | 'auto';
  /**
   * A folder that serves the package's `dist/worker/` (the worker, its chunks and `models/`), e.g. a
   * CDN or a self-hosted copy. Another origin must send CORS headers.
   * @default the files next to this module, as the app's bundler emitted them
   * @example 'https://cdn.example.com/vmem/0.1.0/worker/'
   */
  readonly baseUrl?: string | URL;
  /**
   * Address of onnxruntime-web 1.30.0's full-build binary, `ort-wasm-simd-threaded.jsep.wasm` (28 MB,
   * 4.6 MB brotli-compressed), which WebGPU and the hub encoders run on. vmem does not ship it (one
   * WASM binary by default, and some static hosts refuse files over 25 MiB): install onnxruntime-web
   * and let your bundler emit it, or serve it yourself. It is fetched only when WebGPU or the hub
   * encoders run. Without it `backend: 'auto'` runs on WASM, and `'webgpu'` or `encoders: 'hub'`
   * reject with `INVALID_INPUT`.
   * @default none
   * @example new URL('onnxruntime-web/ort-wasm-simd-threaded.jsep.wasm', import.meta.url) // Vite, webpack 5
   */
  readonly webgpuWasm?: string | URL;
  /**
   * WASM threads. More than one only works on a cross-origin-isolated page.
   * @default up to 4 on an isolated page with more than 2 cores, else 1
   */
  readonly threads?: number;
  /** Model loading progress (`task: 'model'`, in bytes or files); `openMemory` also reports ingest here. @default none */
  readonly onProgress?: ProgressCallback;
}

/** A text encoder and optionally an image encoder (and a picture describer), wherever they run. */
export interface EncoderSet {
  readonly textEncoder: TextEmbedder;
  readonly imageEncoder?: ImageEmbedder;
  /** Describes pictures for machine-derived `derived` units (see `MemoryOptions.describer`). @default none */
  readonly describer?: ImageDescriber;
}

/** Encoders running in vmem's worker; pass them to several `openMemory` calls to load the models once. */
export interface BrowserEncoders extends EncoderSet {
  /** Where the encoders run. */
  readonly backend: Backend;
  /**
   * Why this backend, in a sentence a UI can show.
   * @example "WASM: WebGPU is not available (this browser has no WebGPU)."
   */
  readonly backendReason: string;
  /** Set when WebGPU was tried and abandoned (a failed load or probe), so WASM runs instead. */
  readonly fallbackReason?: string;
  /** What the browser offered: an adapter or not, software or not. */
  readonly webgpu: GpuCapability;
  /** The models loaded, the load time, and on WebGPU how closely the probe matched WASM. */
  readonly info: EncoderWorkerInfo;
  /** WASM threads in use. */
  readonly threads: number;
  /** How often the worker encoded since it started: a reload that re-encodes nothing leaves these at 0. */
  counts(): Promise<EncoderCallCounts>;
  /** The embedded word vectors (5 MB, fetched once from beside the worker's models), for the similar-words signal. */
  wordVectors(): Promise<WordVectors>;
  /** Settles with the reason once the worker has stopped (crash, `terminate`). */
  readonly stopped: Promise<VmemError>;
  /** Stops the worker; memories using it reject encoding calls with `WORKER_FAILED`. */
  terminate(): void;
}

/** What `onRemoteChange` reports. */
export type RemoteChange =
  /** Another tab wrote to the memory; it has already reloaded from storage (nothing re-encoded). */
  | { readonly type: 'reloaded' }
  /** Another tab deleted the memory; it is closed. */
  | { readonly type: 'deleted' }
  /** Reloading after another tab's write failed; the memory is closed. */
  | { readonly type: 'closed'; readonly error: VmemError }
  /**
   * The browser closed the memory's database: the site's data was cleared (browser settings,
   * DevTools, a `Clear-Site-Data` header) or storage failed. The memory is closed, and what it held
   * is gone from this device; `error` (`STORAGE_FAILED`) says so in words a user can read.
   */
  | { readonly type: 'lost'; readonly error: VmemError };

/** Options of `openMemory`. */
export interface OpenMemoryOptions extends Omit<BrowserEncodersOptions, 'encoders'> {
  /**
   * The encoders: a choice of models for a worker `openMemory` starts (and stops on `close`), encoders
   * started with `startBrowserEncoders` (shared, left running on `close`), or any `EncoderSet`.
   * @default 'embedded'
   */
  readonly encoders?: EncoderChoice | EncoderSet;
  /** LLM for query anchors and `answer`. @default the `none` provider (`answer` rejects) */
  readonly llm?: LlmProvider;
  /** Defaults for every `retrieve` call. @default the defaults of `RetrievalOptions` */
  readonly retrieval?: RetrievalOptions;
  /** Shrinks pictures `answer` attaches for a vision LLM. @default browserImageResizer */
  readonly imageResizer?: ImageResizer;
  /**
   * Word vectors for the similar-words signal: `true` loads the embedded table from the worker's
   * models (when the encoders are a worker's), `false` searches without, or pass a table
   * (`parseWordVectors`). A table that fails to load rejects `openMemory` with `MODEL_LOAD_FAILED`.
   * @default true
   */
  readonly wordVectors?: boolean | WordVectors;
  /** Longest text accepted per turn, in characters. @default 20000 */
  readonly maxTextChars?: number;
  /** As `MemoryOptions.describe`: describe pictures before `add` returns, or in the background. @default 'wait' */
  readonly describe?: 'wait' | 'background';
  /**
   * A memory stored by other encoders: `'error'` refuses it (`ENCODER_MISMATCH`); `'reindex'`
   * re-encodes every stored round with these encoders.
   * @default 'error'
   */
  readonly onEncoderMismatch?: 'error' | 'reindex';
  /** `'indexeddb'` keeps the memory across visits; `'memory'` forgets it with the page. @default 'indexeddb' */
  readonly storage?: 'indexeddb' | 'memory';
  /** Another tab changed this memory (IndexedDB only). @default none */
  readonly onRemoteChange?: (change: RemoteChange) => void;
  /**
   * Another tab wrote to this memory while this one was adding rounds (say, during a long import).
   * `'merge'` stores the new rounds anyway, after the other tab's, with nothing re-encoded, then
   * reloads (`onRemoteChange` reports `reloaded`); a round whose id the other tab stored meanwhile
   * makes the add reject with `DUPLICATE_ROUND`, so a repeated submit is never stored twice.
   * `'refuse'` rejects the add with `MEMORY_LOCKED`. Edits and deletions are refused either way.
   * @default 'merge'
   */
  readonly concurrentAdds?: 'merge' | 'refuse';
  /**
   * Encrypts everything stored (docs/security.md): a new memory is locked with this passphrase (or
   * the app's AES-GCM `CryptoKey`); an encrypted one opens only with it. A wrong one rejects with
   * `WRONG_PASSPHRASE` and changes nothing; an encrypted memory opened without one rejects with
   * `PASSPHRASE_REQUIRED`.
   * The passphrase is never stored.
   * @default none (stored as it is)
   */
  readonly encryption?: Unlock;
}

/** A memory opened by `openMemory`: the `Memory` verbs, plus what the browser adds. */
export interface BrowserMemory extends Memory {
  readonly name: string;
  readonly storage: 'indexeddb' | 'memory';
  /** Where the encoders run: `'custom'` for an `EncoderSet` passed in. */
  readonly backend: Backend | 'custom';
  /** Why this backend (see `BrowserEncoders.backendReason`). */
  readonly backendReason: string;
  /** The encoder worker, unless custom encoders were passed in. */
  readonly worker: BrowserEncoders | undefined;
  /**
   * The whole memory as one `.vmem` file (vectors included, so importing re-encodes nothing); for an
   * encrypted memory, encrypted under its passphrase, or under `options.encryption` when given.
   */
  export(options?: ExportOptions): Promise<Blob>;
  /**
   * Re-wraps an encrypted memory's key under a new passphrase: one small write, nothing re-encrypted.
   * Rejects with `WRONG_PASSPHRASE` when `current` is not the memory's passphrase, and with
   * `INVALID_INPUT` for a memory opened without `encryption`.
   */
  changePassphrase(current: string, next: string): Promise<void>;
  /** Closes the storage, and stops the worker when `openMemory` started it. */
  close(): Promise<void>;
}

const BACKENDS: readonly (Backend | 'auto')[] = ['auto', 'webgpu', 'wasm'];
const ENCODER_CHOICES: readonly EncoderChoice[] = ['embedded', 'hub'];
const STORAGES: readonly BrowserMemory['storage'][] = ['indexeddb', 'memory'];
const CONCURRENT_ADDS: readonly NonNullable<OpenMemoryOptions['concurrentAdds']>[] = ['merge', 'refuse'];
/** Encoders made by `startBrowserEncoders`, to tell them from an `EncoderSet` made elsewhere. */
const workers = new WeakSet<EncoderSet>();

/**
 * Starts vmem's encoder worker, on WebGPU when it passes the probe check, else WASM.
 * @example
 * const encoders = await startBrowserEncoders({ onProgress: (p) => console.log(p) });
 * const work = await openMemory('work', { encoders });
 * const home = await openMemory('home', { encoders }); // the models load once
 */
export async function startBrowserEncoders(options: BrowserEncodersOptions = {}): Promise<BrowserEncoders> {
  const preference = oneOf(options.backend, BACKENDS, 'auto', 'backend');
  const encoders = oneOf(options.encoders, ENCODER_CHOICES, 'embedded', 'encoders');
  const threads = options.threads === undefined ? chooseWasmThreads(globalThis.crossOriginIsolated === true, navigator.hardwareConcurrency || 1) : options.threads;
  if (!Number.isInteger(threads) || threads < 1) throw new VmemError('INVALID_INPUT', `threads must be a positive integer, got ${threads}.`);
  const baseUrl = options.baseUrl === undefined ? undefined : folderOf(options.baseUrl);
  const webgpuWasm = options.webgpuWasm === undefined ? undefined : new URL(String(options.webgpuWasm), globalThis.location?.href).href;
  if (webgpuWasm === undefined && (preference === 'webgpu' || encoders === 'hub')) {
    throw new VmemError(
      'INVALID_INPUT',
      `${preference === 'webgpu' ? "backend: 'webgpu'" : "encoders: 'hub'"} runs on onnxruntime-web's full build, which vmem does not ship: pass webgpuWasm, the address of onnxruntime-web 1.30.0's ort-wasm-simd-threaded.jsep.wasm.`,
    );
  }
  const started = await startEncoders({
    createWorker: baseUrl === undefined ? createBundledWorker : () => createWorkerAt(new URL('encoder.worker.js', baseUrl)),
    encoders,
    backend: preference,
    threads,
    ...(webgpuWasm ? { webgpuWasm } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const { client } = started;
  let wordVectors: Promise<WordVectors> | undefined;
  const result: BrowserEncoders = {
    textEncoder: client.textEncoder,
    ...(client.imageEncoder ? { imageEncoder: client.imageEncoder } : {}),
    ...(client.describer ? { describer: client.describer } : {}),
    backend: started.backend,
    backendReason: describeBackend(preference, started, webgpuWasm !== undefined),
    ...(started.fallbackReason ? { fallbackReason: started.fallbackReason } : {}),
    webgpu: started.gpu,
    info: client.info,
    threads,
    counts: () => client.counts(),
    wordVectors: () => (wordVectors ??= client.wordVectors().catch((error: unknown) => {
      wordVectors = undefined;
      throw error;
    })),
    stopped: client.stopped,
    terminate: () => client.terminate(),
  };
  workers.add(result);
  return result;
}

/**
 * Opens the memory `name`, creating it when new. Stored vectors are read back, so nothing stored is
 * encoded again. Rejects with `ENCODER_MISMATCH` for a memory built by other encoders (unless
 * `onEncoderMismatch: 'reindex'`); whatever failed, nothing is left open.
 * @example
 * const memory = await openMemory('support-chat', { llm: createOpenAiProvider({ baseUrl, model }) });
 * console.log(memory.backend, memory.backendReason);
 */
export async function openMemory(name: string, options: OpenMemoryOptions = {}): Promise<BrowserMemory> {
  assertMemoryName(name);
  const storageKind = oneOf(options.storage, STORAGES, 'indexeddb', 'storage');
  const concurrentAdds = oneOf(options.concurrentAdds, CONCURRENT_ADDS, 'merge', 'concurrentAdds');
  const given = typeof options.encoders === 'object' ? options.encoders : undefined;
  if (given !== undefined && typeof given.textEncoder?.embed !== 'function') {
    throw new VmemError('INVALID_INPUT', 'options.encoders needs a textEncoder: pass startBrowserEncoders() or { textEncoder, imageEncoder }.');
  }
  const encoders = given ?? (await startBrowserEncoders({ ...options, encoders: options.encoders as EncoderChoice | undefined }));
  const worker = workers.has(encoders) ? (encoders as BrowserEncoders) : undefined;
  const ownsWorker = given === undefined;
  let wordVectors: WordVectors | undefined;
  let lost: () => Promise<void> = async () => {};
  /** What unlocks the memory now: a reload after another tab's write must use the passphrase `changePassphrase` set. */
  let encryption = options.encryption;

  const open = async (): Promise<{ memory: Memory; storage: MemoryStorage }> => {
    const plain: MemoryStorage = storageKind === 'memory' ? createInMemoryStorage() : await createIdbStorage(name, { concurrentAdds, onTerminated: () => void lost() });
    const storage = encryption ? await sealStorageKeeping(plain as IdbMemoryStorage, encryption, ['name', 'revision', 'onRemoteChange', 'compact'], options.onProgress) : plain;
    try {
      const memory = await createMemory({
        textEncoder: encoders.textEncoder,
        imageEncoder: encoders.imageEncoder,
        describer: encoders.describer,
        describe: options.describe,
        storage,
        llm: options.llm,
        retrieval: options.retrieval,
        maxTextChars: options.maxTextChars,
        onEncoderMismatch: options.onEncoderMismatch,
        imageResizer: options.imageResizer ?? browserImageResizer,
        ...(wordVectors ? { wordVectors } : {}),
        onProgress: options.onProgress,
      });
      return { memory, storage };
    } catch (error) {
      // A refused memory must not stay open: it would block deleting or upgrading it in other tabs.
      await storage.close();
      throw error;
    }
  };

  let current: { memory: Memory; storage: MemoryStorage };
  try {
    wordVectors = typeof options.wordVectors === 'object' ? options.wordVectors : options.wordVectors !== false && worker ? await worker.wordVectors() : undefined;
    current = await open();
  } catch (error) {
    if (ownsWorker) worker?.terminate();
    throw error;
  }

  let closed = false;
  let stopListening = (): void => {};
  /** The browser took the database away: what the memory holds in the page is no longer stored anywhere. */
  lost = async () => {
    if (closed) return;
    await close();
    const error = new VmemError(
      'STORAGE_FAILED',
      `The browser closed the database of memory "${name}": this site's stored data was cleared, or storage failed. What it held is no longer on this device; open it again with openMemory (and import an export to restore it).`,
    );
    options.onRemoteChange?.({ type: 'lost', error });
  };
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    stopListening();
    await current.memory.close();
    if (ownsWorker) worker?.terminate();
  };

  // Writes and reloads take turns: a reload never swaps the memory under a write still running (its
  // rounds would land in a memory already replaced), and a write queued meanwhile reaches the new one.
  const turns = createSerialQueue();
  const closedError = () => (closed ? new VmemError('CLOSED', `Memory "${name}" is closed; open it again with openMemory(${JSON.stringify(name)}).`) : undefined);
  const inTurn = <R>(write: () => Promise<R>): Promise<R> => turns.run(write).catch((error: unknown) => Promise.reject(errorCode(error) === 'CLOSED' ? (closedError() ?? error) : error));
  const writes: Pick<Memory, 'add' | 'update' | 'setCaption' | 'forget' | 'clear'> = {
    add: (rounds, addOptions) => inTurn(() => current.memory.add(rounds, addOptions)),
    update: (roundId, patch) => inTurn(() => current.memory.update(roundId, patch)),
    setCaption: (imageId, caption) => inTurn(() => current.memory.setCaption(imageId, caption)),
    forget: (roundId) => inTurn(() => current.memory.forget(roundId)),
    clear: () => inTurn(() => current.memory.clear()),
  };

  if (storageKind === 'indexeddb') {
    let reloadQueued = false;
    const reload = async (): Promise<void> => {
      reloadQueued = false;
      if (closed) return;
      let next: typeof current;
      try {
        next = await open();
      } catch (error) {
        await close();
        options.onRemoteChange?.({ type: 'closed', error: isVmemError(error) ? error : new VmemError('STORAGE_FAILED', String(error), { cause: error }) });
        return;
      }
      if (closed) {
        await next.memory.close();
        return;
      }
      const previous = current;
      current = next;
      await previous.memory.close();
      options.onRemoteChange?.({ type: 'reloaded' });
    };
    // One listener for the memory's whole life, so no write announced between two reloads is missed.
    stopListening = listenForChanges(name, (change) => {
      if (closed) return;
      if (change.type === 'deleted') {
        void close().then(() => options.onRemoteChange?.({ type: 'deleted' }));
      } else if (change.revision !== (current.storage as IdbMemoryStorage).revision && !reloadQueued) {
        reloadQueued = true;
        void turns.run(reload);
      }
    });
  }

  const extras = {
    name,
    storage: storageKind,
    backend: worker ? worker.backend : 'custom',
    backendReason: worker ? worker.backendReason : 'custom: the encoders passed in run wherever they were made.',
    worker,
    export: (exportOptions?: ExportOptions) => exportMemory(current.memory, exportOptions),
    changePassphrase: async (currentPassphrase: string, next: string) => {
      if (!encryption) throw new VmemError('INVALID_INPUT', `Memory "${name}" was opened without encryption; it has no passphrase to change.`);
      await inTurn(async () => {
        await (current.storage as MemoryStorage & EncryptedStorageControls).changePassphrase(currentPassphrase, next);
        encryption = { passphrase: next };
      });
    },
    close,
    ...writes,
  } satisfies Omit<BrowserMemory, keyof Memory> & Pick<BrowserMemory, 'close' | keyof typeof writes>;
  return delegateTo(() => current.memory, extras, closedError);
}

/**
 * Creates the memory `name` from a file made by `export()`. Rejects with `MEMORY_EXISTS` when the
 * name is taken (checked and created in one step, so two tabs cannot both import it), and with
 * `INVALID_INPUT` for a file that is not a vmem export. A failed import leaves no memory behind.
 * @example
 * await importMemory('alice-restored', fileInput.files[0]);
 * const memory = await openMemory('alice-restored');
 */
export async function importMemory(name: string, file: Blob, options: ImportOptions = {}): Promise<void> {
  assertMemoryName(name);
  if (!(file instanceof Blob)) throw new VmemError('INVALID_INPUT', 'importMemory needs a Blob or File made by memory.export().');
  await importMemoryFile(name, file, options.encryption);
}

/** Options of `importMemory`. */
export interface ImportOptions {
  /**
   * The passphrase (or key) of an encrypted export, which also locks the new memory; given with a
   * plain export, the new memory is encrypted under it. An encrypted export imported without one
   * rejects with `PASSPHRASE_REQUIRED`, with a wrong one `WRONG_PASSPHRASE`; no memory is left behind.
   * @default none
   */
  readonly encryption?: Unlock;
}

/**
 * Encrypts the stored memory `name` in place under `encryption`, with progress (task `encrypt`,
 * unit `rounds`). Interrupted (a closed tab), every round stays whole: call it again, or open the
 * memory with the passphrase, to finish. From its first step on, the memory opens only with the
 * passphrase. Close the memory first: another tab's write meanwhile fails this with `MEMORY_LOCKED`.
 * IndexedDB may keep the bytes of the plain records on disk until the browser compacts its files.
 * @example await encryptMemory('alice', { passphrase }, { onProgress: (event) => console.log(event) });
 */
export async function encryptMemory(name: string, encryption: Unlock, options: { readonly onProgress?: ProgressCallback } = {}): Promise<void> {
  assertMemoryName(name);
  if (!(await listMemories()).includes(name)) throw new VmemError('INVALID_INPUT', `There is no memory "${name}" to encrypt; open it with \`encryption\` to start it encrypted.`);
  const storage = await createIdbStorage(name, { concurrentAdds: 'refuse' });
  try {
    await encryptStorageInPlace(storage, encryption, options.onProgress);
  } finally {
    await storage.close();
  }
}

/**
 * Deletes the memory `name` with everything in it, its sync replica included (the default one: a
 * replica named by `sync({ replica })` is the app's own to delete). Other tabs holding it open are
 * told to close it first; if one does not within 5 s, rejects with `MEMORY_LOCKED`.
 * @example await deleteMemory('support-chat');
 */
export function deleteMemory(name: string): Promise<void> {
  return deleteStoredMemory(name, [replicaDatabaseName(defaultReplicaName(idbMemoryLabel(name)))]);
}

export { listMemories };

/**
 * The memory object: the extras first, every other member read from the memory open now. A reload
 * after another tab's write swaps that memory, and whatever `Memory` gains is passed through as is.
 */
function delegateTo<T extends object>(memory: () => Memory, extras: T, closedError: () => VmemError | undefined): BrowserMemory {
  // A closed memory's CLOSED speaks of createMemory; a browser memory is opened again with openMemory.
  const reworded = (error: unknown): unknown => (errorCode(error) === 'CLOSED' ? (closedError() ?? error) : error);
  const call = (key: string | symbol, args: unknown[]): unknown => {
    let result: unknown;
    try {
      result = Reflect.apply(Reflect.get(memory(), key) as (...a: unknown[]) => unknown, memory(), args);
    } catch (error) {
      throw reworded(error);
    }
    return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(reworded(error))) : result;
  };
  return new Proxy(extras, {
    get(target, key) {
      if (key in target) return Reflect.get(target, key);
      const value = Reflect.get(memory(), key);
      // Looked up at call time, so a verb kept in a variable still reaches the current memory.
      return typeof value === 'function' ? (...args: unknown[]) => call(key, args) : value;
    },
    has: (target, key) => key in target || key in memory(),
  }) as unknown as BrowserMemory;
}

function describeBackend(preference: Backend | 'auto', { backend, gpu, fallbackReason, client }: StartedEncoders, hasFullBuild: boolean): string {
  if (backend === 'webgpu') {
    const { agreement } = client.info;
    const matched = agreement
      ? `, matching WASM on the probe inputs (cosine ${agreement.text.toFixed(5)} text${agreement.image === undefined ? '' : `, ${agreement.image.toFixed(5)} image`})`
      : '';
    return `WebGPU: ${gpu.isFallbackAdapter ? 'a software adapter (correct, but slower than WASM)' : 'the GPU adapter'} passed the probe check${matched}.`;
  }
  if (fallbackReason) return `WASM: WebGPU was tried and abandoned (${fallbackReason}).`;
  if (preference === 'wasm') return "WASM: asked for with backend: 'wasm'.";
  if (!gpu.available) return `WASM: WebGPU is not available (${gpu.reason ?? 'no adapter'}).`;
  if (!hasFullBuild) return "WASM: WebGPU needs onnxruntime-web's full build, and no webgpuWasm was given.";
  return 'WASM: these encoders have no WebGPU path.';
}

function oneOf<T extends string>(value: T | undefined, allowed: readonly T[], fallback: T, what: string): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) throw new VmemError('INVALID_INPUT', `${what} must be one of ${allowed.map((v) => `'${v}'`).join(', ')}; got ${JSON.stringify(value)}.`);
  return value;
}

/** `baseUrl` as an absolute folder URL (ending in `/`), relative ones read against the page. */
function folderOf(baseUrl: string | URL): string {
  const href = new URL(String(baseUrl), globalThis.location?.href).href;
  return href.endsWith('/') ? href : `${href}/`;
}

/**
 * Browsers start only same-origin worker scripts. For a folder on another origin (a CDN), a tiny
 * same-origin blob module imports the worker instead; its `import.meta.url` stays the CDN's, so
 * the models load from there too.
 */
function createWorkerAt(url: URL): Worker {
  if (url.origin === globalThis.location?.origin) return new Worker(url, { type: 'module', name: 'vmem-encoders' });
  const trampoline = URL.createObjectURL(new Blob([`import ${JSON.stringify(url.href)};`], { type: 'text/javascript' }));
  return new Worker(trampoline, { type: 'module', name: 'vmem-encoders' });
}

export type { Backend, EncoderCallCounts, EncoderChoice, EncoderWorkerInfo, GpuCapability } from './worker/protocol.js';
export type { EncoderDescription, WebGpuAgreement } from './worker/protocol.js';
export type { Unlock } from './storage/sealer.js';
export type { ExportOptions } from './memory/export.js';
