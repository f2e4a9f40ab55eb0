/** What the page and the cipher worker say to each other (cipher-thread.ts, cipher.worker.ts). */
import type { IArgon2Options } from 'hash-wasm';

/** Argon2id's inputs, as hash-wasm takes them (the output is always the raw bytes). */
export type Argon2Input = Omit<IArgon2Options, 'outputType'>;

/** One piece of work for the worker. */
export type CipherTask =
  | { readonly op: 'encrypt' | 'decrypt'; readonly algorithm: AesGcmParams; readonly key: CryptoKey; readonly bytes: Uint8Array<ArrayBuffer> }
  | { readonly op: 'argon2id'; readonly options: Argon2Input };
/** What the page asks the cipher worker. */
export type CipherRequest = CipherTask & { readonly id: number };
/** The id of the worker's first message, which says it loaded. */
export const READY_ID = -1;
/** Its answer: the output bytes, or the name of the error. */
export type CipherAnswer = { readonly id: number; readonly out?: ArrayBuffer; readonly error?: string };

