/**
 * The drop-in script: `<script src=".../dropin/vmem.js">` gives a page the global `vmem`, whose
 * `openMemory(name, options)` returns a memory with `add`, `retrieve` and `answer`. Encoders run in a
 * worker loaded from the script's own folder; memories persist in IndexedDB. Works on pages that
 * are not cross-origin isolated (WASM then runs single-threaded).
 */
import type { AnswerOptions, AnswerResult, Memory } from '../src/memory/types.js';
import type { ProgressCallback } from '../src/progress.js';
import { VmemError } from '../src/errors.js';
import { createNoneProvider } from '../src/llm/none.js';
import { createOpenAiProvider, type OpenAiProviderOptions } from '../src/llm/openai.js';
import type { LlmProvider } from '../src/llm/types.js';
import { createMemory } from '../src/memory/memory.js';
import type { RetrievalOptions } from '../src/options.js';
import { createIdbStorage, deleteMemory, listMemories } from '../src/storage/idb.js';
import { createInMemoryStorage } from '../src/storage/memory-storage.js';
import type { Query, RetrievalResult, RoundInput, StoredRound } from '../src/types.js';
import { chooseWasmThreads, type Backend, type EncoderCallCounts } from '../src/worker/protocol.js';
import { startEncoders } from '../src/worker/start.js';

/** Where this script was loaded from; read at load time, while `document.currentScript` is set. */
const SCRIPT_URL: string | undefined =
  (typeof document !== 'undefined' && (document.currentScript as HTMLScriptElement | null)?.src) || import.meta.url || undefined;

/** Options of `openMemory`. */
export interface DropinOptions {
  /**
   * Folder that holds `encoder.worker.js` and `models/`.
   * @default the folder this script was loaded from
   * @example 'https://cdn.example.com/vmem/dropin/'
   */
  readonly baseUrl?: string;
  /**
   * The LLM for `answer`: a provider object, or the settings of an OpenAI-compatible endpoint.
   * @default none (`answer` rejects with `LLM_UNAVAILABLE`)
   */
  readonly llm?: LlmProvider | OpenAiProviderOptions;
  /** `'indexeddb'` keeps the memory across visits; `'memory'` forgets it with the page. @default 'indexeddb' */
  readonly storage?: 'indexeddb' | 'memory';
  /** @default 'auto' (WebGPU when there is an adapter, WASM otherwise) */
  readonly backend?: Backend | 'auto';
  /** Model download and ingest progress. */
  readonly onProgress?: ProgressCallback;
}

/** A memory opened by the drop-in script. */
export interface DropinMemory {
  readonly name: string;
  /** The backend the encoders run on. */
  readonly backend: Backend;
  /** Rounds stored. */
  readonly size: number;
  /** Stores one exchange (or several). */
  add(rounds: RoundInput | readonly RoundInput[]): Promise<StoredRound[]>;
  /** Routed retrieval: a string, or `{ text, image }`. */
  retrieve(query: Query | string, options?: RetrievalOptions): Promise<RetrievalResult>;
  /** Retrieves, then asks the LLM given in the options. */
  answer(query: Query | string, options?: AnswerOptions): Promise<AnswerResult>;
  forget(roundId: string): Promise<void>;
  /** How often the worker encoded (for checking that nothing is re-encoded). */
  encoderCalls(): Promise<EncoderCallCounts>;
  /** The full memory API. */
  readonly memory: Memory;
  /** Closes the memory and stops the worker. */
  close(): Promise<void>;
}

/**
 * Opens (or creates) the memory `name`.
 * @example
 * const memory = await vmem.openMemory('support-chat');
 * await memory.add({ user: { text: 'My order #123 never arrived' }, assistant: { text: 'Sorry! Resending it.' } });
 * const { blocks } = await memory.retrieve('what happened to my order?');
 */
export async function openMemory(name: string, options: DropinOptions = {}): Promise<DropinMemory> {
  const baseUrl = resolveBaseUrl(options.baseUrl);
  const engine = await startEncoders({
    createWorker: () => createWorker(new URL('encoder.worker.js', baseUrl).href),
    encoders: 'embedded',
    backend: options.backend ?? 'auto',
    assetBase: baseUrl,
    threads: chooseWasmThreads(globalThis.crossOriginIsolated === true, navigator.hardwareConcurrency || 1),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  let memory: Memory;
  try {
    memory = await createMemory({
      textEncoder: engine.client.textEncoder,
      ...(engine.client.imageEncoder ? { imageEncoder: engine.client.imageEncoder } : {}),
      storage: options.storage === 'memory' ? createInMemoryStorage() : await createIdbStorage(name),
      llm: toProvider(options.llm),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } catch (error) {
    engine.client.terminate();
    throw error;
  }
  return {
    name,
    backend: engine.backend,
    get size() {
      return memory.size;
    },
    add: (rounds) => memory.add(rounds),
    retrieve: (query, retrieval) => memory.retrieve(query, retrieval),
    answer: (query, answerOptions) => memory.answer(query, answerOptions),
    forget: (roundId) => memory.forget(roundId),
    encoderCalls: () => engine.client.counts(),
    memory,
    async close() {
      await memory.close();
      engine.client.terminate();
    },
  };
}

export { deleteMemory, listMemories, VmemError };

function resolveBaseUrl(given: string | undefined): string {
  const base = given ?? (SCRIPT_URL ? new URL('./', SCRIPT_URL).href : undefined);
  if (!base) throw new VmemError('INVALID_INPUT', 'Could not tell where vmem.js was loaded from; pass openMemory(name, { baseUrl: "https://…/dropin/" }).');
  return base.endsWith('/') ? base : `${base}/`;
}

function toProvider(llm: DropinOptions['llm']): LlmProvider {
  if (!llm) return createNoneProvider();
  return 'complete' in llm ? llm : createOpenAiProvider(llm);
}

/**
 * Browsers only start same-origin worker scripts. When the script is served from another origin
 * (a CDN), a tiny same-origin blob module imports it instead (the host must send CORS headers).
 */
function createWorker(url: string): Worker {
  if (new URL(url).origin === location.origin) return new Worker(url, { type: 'module', name: 'vmem-encoders' });
  const trampoline = URL.createObjectURL(new Blob([`import ${JSON.stringify(url)};`], { type: 'text/javascript' }));
  return new Worker(trampoline, { type: 'module', name: 'vmem-encoders' });
}
