import { describe, expect, it } from 'vitest';
import { createCaptionProxyImageEncoder } from './caption-proxy.js';
import type { TextEmbedder } from './types.js';

/** A deterministic stand-in text encoder: one-hot on text length, so tests can see which text was embedded. */
function lengthEncoder(): TextEmbedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    id: 'length-onehot',
    dimension: 64,
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((text) => {
        const v = new Float32Array(64);
        v[text.length % 64] = 1;
        return v;
      });
    },
  };
}

describe('caption-proxy image encoder', () => {
  it('embeds the trimmed captions with the text encoder, ignoring bytes, in order', async () => {
    const text = lengthEncoder();
    const image = createCaptionProxyImageEncoder(text);
    expect(image.id).toBe('caption-proxy(length-onehot)');
    expect(image.dimension).toBe(64);
    expect(image.captionOnly).toBe(true);
    const vectors = await image.embed([{ caption: '  a dog ' }, { caption: 'a red bicycle', bytes: new Uint8Array([1, 2, 3]) }]);
    expect(text.calls).toEqual([['a dog', 'a red bicycle']]);
    expect(vectors.map((v) => v.indexOf(1))).toEqual([5, 13]);
  });

  it('rejects an image without a caption with INVALID_INPUT naming its index, before embedding anything', async () => {
    const text = lengthEncoder();
    const image = createCaptionProxyImageEncoder(text);
    await expect(image.embed([{ caption: 'ok' }, { bytes: new Uint8Array([1]) }])).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('Image 1') });
    await expect(image.embed([{ caption: '   ' }])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(text.calls).toEqual([]);
  });
});
