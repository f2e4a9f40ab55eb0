import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHashTextEncoder } from '../src/testing/hash-encoder.js';
import { memoizeTextEncoder } from './memo-encoder.js';
import { openVectorCache } from './vector-cache.js';

describe('openVectorCache', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vmem-vectors-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps vectors per encoder id and dimension across openings', async () => {
    const cache = await openVectorCache(dir, 'enc/one', 3);
    cache.put('a red kite', new Float32Array([0.5, -1, 2]));
    cache.put('ünïcödé ✓', new Float32Array([1, 2, 3]));
    await cache.flush();
    const again = await openVectorCache(dir, 'enc/one', 3);
    expect(again.loaded).toBe(2);
    expect(Array.from(again.get('a red kite')!)).toEqual([0.5, -1, 2]);
    expect(Array.from(again.get('ünïcödé ✓')!)).toEqual([1, 2, 3]);
    expect((await openVectorCache(dir, 'enc/two', 3)).loaded).toBe(0);
    expect((await openVectorCache(dir, 'enc/one', 4)).loaded).toBe(0);
  });

  it('drops a record cut short by an interrupted write, keeping the ones before it', async () => {
    const cache = await openVectorCache(dir, 'enc', 2);
    cache.put('kept', new Float32Array([1, 2]));
    await cache.flush();
    await appendFile(cache.file, new Uint8Array([5, 0, 0, 0, 104, 105]));
    const again = await openVectorCache(dir, 'enc', 2);
    expect(again.loaded).toBe(1);
    expect(again.get('kept')).toBeDefined();
  });

  it('refuses a vector of the wrong dimension', async () => {
    const cache = await openVectorCache(dir, 'enc', 2);
    expect(() => cache.put('x', new Float32Array(3))).toThrow(/holds 2-d vectors/);
  });

  it('serves a memoised encoder from disk, embedding only new texts, and not while the cache is off', async () => {
    const first = createHashTextEncoder();
    const store = await openVectorCache(dir, first.id, first.dimension);
    const memo = memoizeTextEncoder(first, store);
    const [stored] = await memo.embed(['a red kite']);
    await store.flush();
    expect((await readFile(store.file)).byteLength).toBeGreaterThan(0);

    const second = createHashTextEncoder();
    const reopened = memoizeTextEncoder(second, await openVectorCache(dir, second.id, second.dimension));
    const [served] = await reopened.embed(['a red kite', 'a blue boat']);
    expect(Array.from(served!)).toEqual(Array.from(stored!));
    expect(second.encoded).toEqual(['a blue boat']);
    expect(reopened.diskHits).toBe(1);
    reopened.useCache = false;
    await reopened.embed(['a red kite']);
    expect(second.encoded).toEqual(['a blue boat', 'a red kite']);
  });
});
