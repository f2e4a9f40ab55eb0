/**
 * Where the memory's cryptography runs. Chromium performs WebCrypto's work on the calling thread, so
 * opening an encrypted memory (several MB of index segments to decrypt) blocked the page for tens of
 * ms, and Argon2id (hash-wasm) for about 100 ms. In a page both run in a small worker of their own
 * (`cipher.worker.ts`, started the way bundlers follow: `new Worker(new URL(…, import.meta.url))`);
 * a `CryptoKey` is structured-cloneable, the bytes come back transferred. Where there is no `Worker`
 * (Node, whose WebCrypto already runs on its thread pool) or the worker cannot start (a policy
 * refuses it, a page without a bundler cannot resolve its import), everything runs inline.
 */
import { argon2id } from 'hash-wasm';
import { READY_ID, type Argon2Input, type CipherAnswer, type CipherRequest, type CipherTask } from './cipher-protocol.js';

/** Below this, posting to the worker costs more than it saves. */
const WORKER_MIN_BYTES = 64 * 1024;

type Pending = { resolve: (out: ArrayBuffer) => void; reject: (error: Error) => void; inline: () => Promise<ArrayBuffer> };

let worker: Worker | undefined;
/** Set once the worker could not start: every later call runs inline. */
let workerRefused = typeof Worker === 'undefined';
/** Set once the worker said it loaded: only then may bytes be transferred to it (a worker that fails to load leaves them detached). */
let workerLoaded = false;
let nextId = 0;
const pending = new Map<number, Pending>();

function cipherWorker(): Worker | undefined {
  if (worker || workerRefused) return worker;
  try {
    worker = new Worker(new URL('./cipher.worker.js', import.meta.url), { type: 'module', name: 'vmem-cipher' });
  } catch {
    workerRefused = true;
    return undefined;
  }
  worker.onmessage = ({ data }: MessageEvent<CipherAnswer>) => {
    if (data.id === READY_ID) workerLoaded = true;
    const call = pending.get(data.id);
    pending.delete(data.id);
    if (!call) return;
    if (data.out) call.resolve(data.out);
    else call.reject(new Error(`${data.error ?? 'Error'} in the cipher worker`));
  };
  // A worker that failed to load: what was sent to it runs inline, and so does everything after.
  worker.onerror = (event) => {
    event.preventDefault();
    workerRefused = true;
    worker?.terminate();
    worker = undefined;
    const calls = [...pending.values()];
    pending.clear();
    for (const call of calls) call.inline().then(call.resolve, call.reject);
  };
  return worker;
}

function run(task: CipherTask, inline: () => Promise<ArrayBuffer>, offload: boolean, transfer: Transferable[] = []): Promise<ArrayBuffer> {
  const target = offload ? cipherWorker() : undefined;
  if (!target) return inline();
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject, inline });
    target.postMessage({ ...task, id } satisfies CipherRequest, workerLoaded ? transfer : []);
  });
}

/**
 * `crypto.subtle.encrypt` or `decrypt` with AES-GCM; off the page's main thread for large inputs
 * where it can be. With `transfer`, the buffer under `bytes` moves to the worker instead of being
 * copied: only for bytes nobody reads afterwards.
 */
export function aesGcm(op: 'encrypt' | 'decrypt', algorithm: AesGcmParams, key: CryptoKey, bytes: Uint8Array<ArrayBuffer>, transfer = false): Promise<ArrayBuffer> {
  return run({ op, algorithm, key, bytes }, () => crypto.subtle[op](algorithm, key, bytes), bytes.byteLength >= WORKER_MIN_BYTES, transfer ? [bytes.buffer] : []);
}

/** Argon2id's raw output, off the page's main thread where it can be. */
export async function argon2idBytes(options: Argon2Input): Promise<Uint8Array> {
  const inline = async () => (await argon2id({ ...options, outputType: 'binary' })).slice().buffer as ArrayBuffer;
  return new Uint8Array(await run({ op: 'argon2id', options }, inline, true));
}
