import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { VmemError } from '../errors.js';
import type { VmemErrorCode } from '../errors.js';
import { createLazy } from '../util/lazy.js';
import { createSerialQueue } from '../util/serial-queue.js';
import type { LoadableTextEmbedder } from './use-lite.js';
import { USE_LITE_DIMENSION, USE_LITE_MAX_TOKENS, useLiteId } from './use-lite.js';
import type { UseLiteWorkerData, UseLiteWorkerReply, UseLiteWorkerRequest } from './use-lite-node-worker.js';

/** Options of `createNodeUseLitePool`. */
export interface NodeUseLitePoolOptions {
  /**
   * Worker threads, each with its own model copy (~130 MB). TF.js-WASM is single-threaded in Node,
   * so this is the only way to use more than one core there.
   * @default min(2, available cores)
   */
  readonly workers?: number;
  /** As in `createUseLiteTextEncoder`. @default 128 */
  readonly maxTokens?: number;
  /** As in `createUseLiteTextEncoder`. @default 2048 */
  readonly batchTokens?: number;
  /**
   * Texts handed to a worker at a time. Smaller evens out the load, larger pads less.
   * @default 128
   */
  readonly chunkSize?: number;
}

interface PoolWorker {
  readonly worker: Worker;
  readonly pending: Map<number, { resolve(vectors: Float32Array[]): void; reject(error: unknown): void }>;
}

/**
 * Node only: USE-Lite spread over worker threads. Same vectors and `id` as `createUseLiteTextEncoder`
 * (the pool is only faster on big batches). Workers start on the first `embed` (or `load`); a worker
 * that dies fails the call in flight with `WORKER_FAILED`, and the next call starts fresh workers.
 * @example
 * const text = createNodeUseLitePool({ workers: 2 });
 * const vectors = await text.embed(allTurnTexts);
 * await text.dispose(); // ends the threads
 */
export function createNodeUseLitePool(options: NodeUseLitePoolOptions = {}): LoadableTextEmbedder {
  const workerCount = options.workers ?? Math.min(2, availableParallelism());
  const chunkSize = options.chunkSize ?? 128;
  if (!Number.isInteger(workerCount) || workerCount < 1) throw new VmemError('INVALID_INPUT', `workers must be a positive integer, got ${workerCount}.`);
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new VmemError('INVALID_INPUT', `chunkSize must be a positive integer, got ${chunkSize}.`);
  const data: UseLiteWorkerData = { maxTokens: options.maxTokens, batchTokens: options.batchTokens };
  const queue = createSerialQueue();
  let nextRequestId = 0;
  let disposed = false;

  const pool = createLazy(async (): Promise<PoolWorker[]> => {
    const workers: PoolWorker[] = [];
    // One dead thread retires its whole generation; the next call starts a fresh one.
    const retire = (): void => {
      if (pool.peek() === workers) pool.reset();
      for (const w of workers) void w.worker.terminate();
    };
    for (let i = 0; i < workerCount; i++) workers.push(startWorker(data, retire));
    // A one-word request per worker makes each load its model now, in parallel.
    try {
      await Promise.all(workers.map((w) => request(w, ['warm up'])));
    } catch (error) {
      retire();
      throw error;
    }
    return workers;
  });

  const request = (poolWorker: PoolWorker, texts: readonly string[]): Promise<Float32Array[]> =>
    new Promise((resolve, reject) => {
      const id = nextRequestId++;
      poolWorker.pending.set(id, { resolve, reject });
      const message: UseLiteWorkerRequest = { id, texts };
      poolWorker.worker.postMessage(message);
    });

  const ensureOpen = (): void => {
    if (disposed) throw new VmemError('CLOSED', 'This USE-Lite worker pool was disposed; create a new one.');
  };

  return {
    id: useLiteId(Math.min(options.maxTokens ?? USE_LITE_MAX_TOKENS, USE_LITE_MAX_TOKENS)),
    dimension: USE_LITE_DIMENSION,
    async load() {
      ensureOpen();
      await pool.get();
    },
    embed(texts) {
      return queue.run(async () => {
        ensureOpen();
        if (texts.length === 0) return [];
        const workers = await pool.get();
        // Similar lengths go to the same chunk (little padding); idle workers pull the next chunk.
        const order = texts.map((_, index) => index).sort((a, b) => texts[a]!.length - texts[b]!.length);
        const chunks: number[][] = [];
        for (let start = 0; start < order.length; start += chunkSize) chunks.push(order.slice(start, start + chunkSize));
        const vectors: Float32Array[] = new Array(texts.length);
        let next = 0;
        const drain = async (poolWorker: PoolWorker): Promise<void> => {
          while (next < chunks.length) {
            const chunk = chunks[next++]!;
            const chunkVectors = await request(poolWorker, chunk.map((index) => texts[index]!));
            chunk.forEach((index, k) => {
              vectors[index] = chunkVectors[k]!;
            });
          }
        };
        await Promise.all(workers.map(drain));
        return vectors;
      });
    },
    dispose() {
      return queue.run(async () => {
        disposed = true;
        const workers = pool.peek();
        pool.reset();
        if (workers !== undefined) await Promise.all(workers.map((w) => w.worker.terminate()));
      });
    },
  };
}

function startWorker(data: UseLiteWorkerData, onDeath: () => void): PoolWorker {
  const here = import.meta.url;
  let worker: Worker;
  if (here.endsWith('.ts')) {
    // Running from TypeScript sources (tests, tsx): load the worker through tsx's import API.
    // The ESM build of tsx's API (its `exports` maps the import condition of 'tsx/esm/api' here).
    const tsxDir = dirname(createRequire(here).resolve('tsx/package.json'));
    const tsxApi = pathToFileURL(join(tsxDir, 'dist', 'esm', 'api', 'index.mjs')).href;
    const entry = new URL('./use-lite-node-worker.ts', here).href;
    const boot = `import(${JSON.stringify(tsxApi)}).then((tsx) => tsx.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`;
    worker = new Worker(boot, { eval: true, workerData: data });
  } else {
    worker = new Worker(new URL('./use-lite-node-worker.js', here), { workerData: data });
  }
  const pending: PoolWorker['pending'] = new Map();
  const failAll = (message: string, cause?: unknown): void => {
    onDeath();
    for (const { reject } of pending.values()) reject(new VmemError('WORKER_FAILED', message, { cause }));
    pending.clear();
  };
  worker.on('message', (reply: UseLiteWorkerReply) => {
    const waiter = pending.get(reply.id);
    if (waiter === undefined) return;
    pending.delete(reply.id);
    if ('vectors' in reply) waiter.resolve(reply.vectors);
    else waiter.reject(new VmemError((reply.error.code ?? 'WORKER_FAILED') as VmemErrorCode, reply.error.message));
  });
  worker.on('error', (error) => failAll(`A USE-Lite worker thread failed: ${error.message}. The next call starts new workers.`, error));
  worker.on('exit', (code) => {
    if (pending.size > 0) failAll(`A USE-Lite worker thread exited (code ${code}) with work in flight. The next call starts new workers.`);
  });
  return { worker, pending };
}
