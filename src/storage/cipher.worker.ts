/// <reference lib="webworker" />
/**
 * The cipher worker (see cipher-thread.ts): AES-GCM on large records and Argon2id, off the page's
 * main thread. Each request carries an id; the answer carries it back with the bytes, transferred.
 */
import { argon2id } from 'hash-wasm';
import { READY_ID, type CipherAnswer, type CipherRequest } from './cipher-protocol.js';

self.onmessage = async ({ data }: MessageEvent<CipherRequest>) => {
  try {
    const out =
      data.op === 'argon2id'
        ? ((await argon2id({ ...data.options, outputType: 'binary' })).slice().buffer as ArrayBuffer)
        : await crypto.subtle[data.op](data.algorithm, data.key, data.bytes);
    self.postMessage({ id: data.id, out } satisfies CipherAnswer, [out]);
  } catch (error) {
    self.postMessage({ id: data.id, error: error instanceof Error ? error.name : String(error) } satisfies CipherAnswer);
  }
};
// Loaded: from now on the page may transfer bytes here (they could not be run inline again).
self.postMessage({ id: READY_ID } satisfies CipherAnswer);
