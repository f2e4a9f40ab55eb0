/**
 * One open memory in the page: IndexedDB storage + `createMemory` over the worker's encoders.
 * When another tab writes to the same memory, it is reopened from storage (no re-encoding).
 */
import type { Memory } from '../src/memory/types.js';
import { errorCode } from '../src/errors.js';
import type { ProgressCallback } from '../src/progress.js';
import type { LlmProvider } from '../src/llm/types.js';
import { createMemory } from '../src/memory/memory.js';
import { createIdbStorage, type IdbMemoryStorage } from '../src/storage/idb.js';
import type { EncoderWorkerClient } from '../src/worker/client.js';

/** An open memory and its storage. */
export interface MemorySession {
  readonly name: string;
  readonly memory: Memory;
  readonly storage: IdbMemoryStorage;
  /** Milliseconds to open: read stored vectors and rebuild the indexes. */
  readonly openMs: number;
  close(): Promise<void>;
}

/** Options of `openMemorySession`. */
export interface OpenSessionOptions {
  readonly name: string;
  readonly encoders: EncoderWorkerClient;
  readonly llm: LlmProvider;
  /** Re-encode a memory built by other encoders instead of refusing it. @default false */
  readonly reindex?: boolean;
  readonly onProgress?: ProgressCallback;
  /** Called after another tab changed or deleted this memory; the session is already closed then. */
  readonly onRemoteChange?: (change: { type: 'written' | 'deleted' }) => void;
}

/**
 * Opens the named memory. The storage is closed again if `createMemory` refuses it, so a failed
 * open leaves nothing locked.
 */
export async function openMemorySession(options: OpenSessionOptions): Promise<MemorySession> {
  const started = performance.now();
  const storage = await createIdbStorage(options.name);
  let memory: Memory;
  try {
    memory = await createMemory({
      textEncoder: options.encoders.textEncoder,
      ...(options.encoders.imageEncoder ? { imageEncoder: options.encoders.imageEncoder } : {}),
      storage,
      llm: options.llm,
      onEncoderMismatch: options.reindex ? 'reindex' : 'error',
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } catch (error) {
    await storage.close();
    throw error;
  }
  const openMs = performance.now() - started;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    await memory.close();
  };
  const unsubscribe = storage.onRemoteChange((change) => {
    void close().then(() => options.onRemoteChange?.({ type: change.type }));
  });
  return { name: options.name, memory, storage, openMs, close };
}

/** True when an error means "this memory was built by other encoders". */
export function isEncoderMismatch(error: unknown): boolean {
  return errorCode(error) === 'ENCODER_MISMATCH';
}
