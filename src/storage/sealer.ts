/**
 * The cryptography of an encrypted memory, and nothing else: a random data key, wrapped by a key
 * derived from the passphrase (Argon2id, hash-wasm) or by a key the app supplies; and a `Sealer`
 * that encrypts each record with AES-256-GCM (WebCrypto, in browsers and Node alike) under a fresh
 * 96-bit nonce, its kind and id bound in as additional data, so a record moved to another id or
 * kind fails to authenticate. Ids that could tell something (round ids are the app's own) are
 * stored as an HMAC-SHA-256 of the id under a key derived from the data key. In a page, Argon2id and
 * the large records' AES-GCM run in the cipher worker (cipher-thread.ts).
 */
import { VmemError } from '../errors.js';
import { fromBase64, toBase64, toHex } from '../util/byte-text.js';
import { aesGcm, argon2idBytes } from './cipher-thread.js';

/** How an encrypted memory is unlocked: a passphrase, or an AES-GCM `CryptoKey` the app keeps itself (usages `encrypt` and `decrypt`). */
export type Unlock = { readonly passphrase: string } | { readonly key: CryptoKey };

/** Argon2id's cost, stored beside the wrapped key so a memory keeps opening if the defaults change. */
export interface KdfParams {
  readonly name: 'argon2id';
  /** KiB of memory. */
  readonly memoryKiB: number;
  readonly iterations: number;
  readonly parallelism: number;
  /** Base64. */
  readonly salt: string;
}

/**
 * What stays readable of an encrypted memory's keys: how the wrapping key is made and the data key
 * it wraps (base64 of the sealed bytes). Nothing here helps read the memory without the passphrase.
 */
export interface KeyRecord {
  readonly version: 1;
  /** `'key'`: wrapped by the app's own `CryptoKey`. */
  readonly kdf: KdfParams | { readonly name: 'key' };
  readonly wrappedKey: string;
}

/**
 * OWASP's second Argon2id configuration (19 MiB, 2 passes, 1 lane): docs/security.md has the
 * measured time. Raising it slows every unlock, in the worst case on a phone.
 */
const DEFAULT_KDF: KdfCost = { memoryKiB: 19 * 1024, iterations: 2, parallelism: 1 };

export type KdfCost = Omit<KdfParams, 'name' | 'salt'>;

const NONCE_BYTES = 12;
const SEALED_VERSION = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const WRAP_AAD = 'vmem/data-key';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** A record that failed to authenticate: tampered, damaged, or sealed under another id or key. */
export class SealError extends Error {}

/** Encrypts and decrypts records under one memory's data key. */
export interface Sealer {
  /** `[version, nonce(12), ciphertext + tag(16)]`; `kind` and `id` must be given again to open it. */
  seal(kind: string, id: string, plain: Uint8Array): Promise<Uint8Array>;
  /**
   * `owned`: nobody reads `sealed` afterwards, so in a page its buffer may move to the cipher worker uncopied.
   * @throws SealError when the bytes fail to authenticate under this kind and id
   */
  open(kind: string, id: string, sealed: Uint8Array, owned?: boolean): Promise<Uint8Array>;
  sealText(kind: string, id: string, text: string): Promise<string>;
  openText(kind: string, id: string, sealed: string): Promise<string>;
  /** The stored name of `id`: 64 hex digits of HMAC-SHA-256 under the memory's id key. Cached. */
  storedId(kind: string, id: string): Promise<string>;
}

/** A memory's data key, unwrapped: what makes its sealer, and what a new passphrase wraps again. */
export interface DataKey {
  readonly raw: Uint8Array;
  readonly sealer: Sealer;
}

/** A new data key and its record, wrapped for `unlock`. */
export async function createDataKey(unlock: Unlock, kdf: KdfCost = DEFAULT_KDF): Promise<{ key: DataKey; record: KeyRecord }> {
  const raw = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
  const key = { raw, sealer: await sealerOf(raw) };
  return { key, record: await wrapDataKey(key, unlock, kdf) };
}

/** The data key's record under `unlock` (a fresh salt each time). */
export async function wrapDataKey(key: DataKey, unlock: Unlock, kdf: KdfCost = DEFAULT_KDF): Promise<KeyRecord> {
  const params: KeyRecord['kdf'] = 'key' in unlock ? { name: 'key' } : { name: 'argon2id', ...kdf, salt: toBase64(crypto.getRandomValues(new Uint8Array(SALT_BYTES))) };
  const wrapping = await wrappingKey(unlock, params);
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: utf8.encode(WRAP_AAD) }, wrapping, key.raw as Uint8Array<ArrayBuffer>);
  return { version: 1, kdf: params, wrappedKey: toBase64(concat(nonce, new Uint8Array(sealed))) };
}

/**
 * The data key of `record`, unwrapped with `unlock`.
 * @throws VmemError `WRONG_PASSPHRASE` when it does not unwrap (wrong passphrase or key); `INVALID_INPUT` for a passphrase where a key is needed and back
 */
export async function unwrapDataKey(record: KeyRecord, unlock: Unlock, label: string): Promise<DataKey> {
  if ('key' in unlock !== (record.kdf.name === 'key')) {
    throw new VmemError('INVALID_INPUT', `${label} is locked with ${record.kdf.name === 'key' ? "the app's own key: pass `key`" : 'a passphrase: pass `passphrase`'}, not ${'key' in unlock ? 'a key' : 'a passphrase'}.`);
  }
  const wrapping = await wrappingKey(unlock, record.kdf);
  const wrapped = fromBase64(record.wrappedKey);
  let raw: Uint8Array;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: wrapped.subarray(0, NONCE_BYTES) as Uint8Array<ArrayBuffer>, additionalData: utf8.encode(WRAP_AAD) },
      wrapping,
      wrapped.subarray(NONCE_BYTES) as Uint8Array<ArrayBuffer>,
    );
    raw = new Uint8Array(plain);
  } catch (error) {
    throw new VmemError('WRONG_PASSPHRASE', `The ${'key' in unlock ? 'key' : 'passphrase'} does not unlock ${label}; nothing was changed. Check it and try again (a lost passphrase cannot be recovered).`, { cause: error });
  }
  return { raw, sealer: await sealerOf(raw) };
}

async function wrappingKey(unlock: Unlock, kdf: KeyRecord['kdf']): Promise<CryptoKey> {
  if ('key' in unlock) {
    if (!(unlock.key instanceof CryptoKey) || unlock.key.algorithm.name !== 'AES-GCM') throw new VmemError('INVALID_INPUT', 'encryption.key must be an AES-GCM CryptoKey with the usages "encrypt" and "decrypt".');
    return unlock.key;
  }
  if (typeof unlock.passphrase !== 'string' || unlock.passphrase === '') throw new VmemError('INVALID_INPUT', 'The passphrase must be a non-empty string.');
  if (kdf.name !== 'argon2id') throw new VmemError('INVALID_INPUT', 'This memory is locked with a key, not a passphrase.');
  const bytes = await argon2idBytes({
    password: unlock.passphrase.normalize('NFC'),
    salt: fromBase64(kdf.salt),
    iterations: kdf.iterations,
    parallelism: kdf.parallelism,
    memorySize: kdf.memoryKiB,
    hashLength: KEY_BYTES,
  });
  return crypto.subtle.importKey('raw', bytes as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/** The record key and the id key, both derived from the data key by HKDF, never stored. */
async function sealerOf(raw: Uint8Array): Promise<Sealer> {
  const base = await crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, 'HKDF', false, ['deriveKey']);
  const derive = (info: string, algorithm: AesKeyGenParams | HmacKeyGenParams, usages: KeyUsage[]) =>
    crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: utf8.encode(info) }, base, algorithm, false, usages);
  const recordKey = await derive('vmem/records', { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']);
  const idKey = await derive('vmem/ids', { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign']);
  const ids = new Map<string, Promise<string>>();
  const aad = (kind: string, id: string) => utf8.encode(`vmem/${kind}/${id}`);

  const seal = async (kind: string, id: string, plain: Uint8Array): Promise<Uint8Array> => {
    const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
    const sealed = await aesGcm('encrypt', { name: 'AES-GCM', iv: nonce, additionalData: aad(kind, id) }, recordKey, plain as Uint8Array<ArrayBuffer>);
    return concat(Uint8Array.of(SEALED_VERSION), nonce, new Uint8Array(sealed));
  };
  const open = async (kind: string, id: string, sealed: Uint8Array, owned = false): Promise<Uint8Array> => {
    if (sealed.byteLength < 1 + NONCE_BYTES + 16 || sealed[0] !== SEALED_VERSION) throw new SealError(`not a sealed ${kind} record`);
    try {
      const plain = await aesGcm(
        'decrypt',
        { name: 'AES-GCM', iv: sealed.slice(1, 1 + NONCE_BYTES), additionalData: aad(kind, id) },
        recordKey,
        sealed.subarray(1 + NONCE_BYTES) as Uint8Array<ArrayBuffer>,
        owned,
      );
      return new Uint8Array(plain);
    } catch (error) {
      throw new SealError(`the ${kind} record fails to authenticate`, { cause: error });
    }
  };
  return {
    seal,
    open,
    sealText: async (kind, id, text) => toBase64(await seal(kind, id, utf8.encode(text))),
    openText: async (kind, id, sealed) => {
      let bytes: Uint8Array;
      try {
        bytes = fromBase64(sealed);
      } catch (error) {
        throw new SealError(`the ${kind} record is not base64`, { cause: error });
      }
      return fromUtf8.decode(await open(kind, id, bytes));
    },
    storedId(kind, id) {
      const cacheKey = `${kind}\u0000${id}`;
      let stored = ids.get(cacheKey);
      if (!stored) {
        stored = crypto.subtle.sign('HMAC', idKey, utf8.encode(cacheKey)).then((mac) => toHex(new Uint8Array(mac)));
        ids.set(cacheKey, stored);
      }
      return stored;
    },
  };
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
