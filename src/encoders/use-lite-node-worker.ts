/**
 * Node worker thread that runs one USE-Lite encoder for `createNodeUseLitePool`.
 * Messages in: `{ id, texts }`; out: `{ id, vectors }` (buffers transferred) or `{ id, error }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorCode } from '../errors.js';
import { nodeTfjsWasmDir, nodeUseLiteModelPath, readFileAsFetch } from './node-assets.js';
import { createUseLiteTextEncoder } from './use-lite.js';

/** Settings the pool passes to each worker. */
export interface UseLiteWorkerData {
  readonly maxTokens?: number;
  readonly batchTokens?: number;
}

/** A request to embed. */
export interface UseLiteWorkerRequest {
  readonly id: number;
  readonly texts: readonly string[];
}

/** The worker's answer to one request. */
export type UseLiteWorkerReply =
  | { readonly id: number; readonly vectors: Float32Array[] }
  | { readonly id: number; readonly error: { readonly message: string; readonly code?: string } };

const settings = (workerData ?? {}) as UseLiteWorkerData;
const encoder = createUseLiteTextEncoder({
  modelUrl: nodeUseLiteModelPath(),
  fetch: readFileAsFetch,
  wasmPaths: nodeTfjsWasmDir(),
  maxTokens: settings.maxTokens,
  batchTokens: settings.batchTokens,
});

parentPort!.on('message', (request: UseLiteWorkerRequest) => {
  encoder.embed(request.texts).then(
    (vectors) => {
      const reply: UseLiteWorkerReply = { id: request.id, vectors };
      parentPort!.postMessage(reply, vectors.map((vector) => vector.buffer as ArrayBuffer));
    },
    (error: unknown) => {
      const reply: UseLiteWorkerReply = { id: request.id, error: { message: String((error as Error)?.message ?? error), code: errorCode(error) } };
      parentPort!.postMessage(reply);
    },
  );
});
