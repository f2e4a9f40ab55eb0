import { describe, expect, it } from 'vitest';
import { createHashTextEncoder } from '../src/testing/hash-encoder.js';
import { memoizeTextEncoder } from './memo-encoder.js';

describe('memoizeTextEncoder', () => {
  it('embeds a text once, also when two calls ask for it at the same time', async () => {
    const inner = createHashTextEncoder();
    const memo = memoizeTextEncoder(inner);
    const [a, b] = await Promise.all([memo.embed(['a red kite', 'hello']), memo.embed(['a red kite'])]);
    expect(inner.encoded).toEqual(['a red kite', 'hello']);
    expect(Array.from(b[0]!)).toEqual(Array.from(a[0]!));
    expect({ hits: memo.hits, misses: memo.misses }).toEqual({ hits: 1, misses: 2 });
  });

  it('embeds again while the cache is off, as query timing needs', async () => {
    const inner = createHashTextEncoder();
    const memo = memoizeTextEncoder(inner);
    await memo.embed(['question']);
    memo.useCache = false;
    await memo.embed(['question']);
    expect(inner.encoded).toEqual(['question', 'question']);
  });

  it('does not remember a failed call', async () => {
    const inner = createHashTextEncoder();
    let fail = true;
    const memo = memoizeTextEncoder({
      ...inner,
      embed: async (texts) => {
        if (fail) throw new Error('model not ready');
        return inner.embed(texts);
      },
    });
    await expect(memo.embed(['x'])).rejects.toThrow('model not ready');
    fail = false;
    await expect(memo.embed(['x'])).resolves.toHaveLength(1);
  });
});
