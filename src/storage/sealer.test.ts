import { describe, expect, it } from 'vitest';
import { createDataKey, SealError, unwrapDataKey, wrapDataKey } from './sealer.js';

const FAST_KDF = { memoryKiB: 1024, iterations: 1, parallelism: 1 } as const;
const utf8 = new TextEncoder();

describe('sealer', () => {
  it('opens what it sealed, under the same kind and id only', async () => {
    const { key } = await createDataKey({ passphrase: 'correct horse' }, FAST_KDF);
    const sealed = await key.sealer.seal('round', 'r1', utf8.encode('a secret'));
    expect(new TextDecoder().decode(await key.sealer.open('round', 'r1', sealed))).toBe('a secret');
    await expect(key.sealer.open('round', 'r2', sealed)).rejects.toBeInstanceOf(SealError);
    await expect(key.sealer.open('facts', 'r1', sealed)).rejects.toBeInstanceOf(SealError);
  });

  it('refuses a record with one flipped byte, and one sealed under another data key', async () => {
    const { key } = await createDataKey({ passphrase: 'p' }, FAST_KDF);
    const { key: other } = await createDataKey({ passphrase: 'p' }, FAST_KDF);
    const sealed = await key.sealer.seal('image', 'i', new Uint8Array(100).fill(7));
    for (const at of [1, 13, sealed.length - 1]) {
      const flipped = sealed.slice();
      flipped[at]! ^= 1;
      await expect(key.sealer.open('image', 'i', flipped)).rejects.toBeInstanceOf(SealError);
    }
    await expect(other.sealer.open('image', 'i', sealed)).rejects.toBeInstanceOf(SealError);
  });

  it('seals the same text differently each time (a fresh nonce), and names ids the same way each time under one key only', async () => {
    const { key } = await createDataKey({ passphrase: 'p' }, FAST_KDF);
    const { key: other } = await createDataKey({ passphrase: 'p' }, FAST_KDF);
    expect(await key.sealer.sealText('round', 'r', 'same')).not.toBe(await key.sealer.sealText('round', 'r', 'same'));
    const stored = await key.sealer.storedId('round', 'my-round');
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(await key.sealer.storedId('round', 'my-round')).toBe(stored);
    expect(await key.sealer.storedId('image', 'my-round')).not.toBe(stored);
    expect(await other.sealer.storedId('round', 'my-round')).not.toBe(stored);
  });

  it('unwraps the data key with the passphrase only, and re-wraps it under a new one', async () => {
    const { key, record } = await createDataKey({ passphrase: 'old' }, FAST_KDF);
    const sealed = await key.sealer.seal('round', 'r', utf8.encode('kept'));
    await expect(unwrapDataKey(record, { passphrase: 'wrong' }, 'the memory')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    const rewrapped = await wrapDataKey(await unwrapDataKey(record, { passphrase: 'old' }, 'the memory'), { passphrase: 'new' }, FAST_KDF);
    expect(rewrapped.kdf).not.toEqual(record.kdf); // a fresh salt
    await expect(unwrapDataKey(rewrapped, { passphrase: 'old' }, 'the memory')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    const reopened = await unwrapDataKey(rewrapped, { passphrase: 'new' }, 'the memory');
    expect(new TextDecoder().decode(await reopened.sealer.open('round', 'r', sealed))).toBe('kept');
  });

  it("wraps with the app's own CryptoKey, and refuses another key", async () => {
    const appKey = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const otherKey = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const { record } = await createDataKey({ key: appKey });
    expect(record.kdf).toEqual({ name: 'key' });
    await expect(unwrapDataKey(record, { key: otherKey }, 'the memory')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    await expect(unwrapDataKey(record, { passphrase: 'x' }, 'the memory')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(unwrapDataKey(record, { key: appKey }, 'the memory')).resolves.toBeDefined();
  });
});
