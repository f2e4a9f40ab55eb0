import { describe, expect, it } from 'vitest';
import type { ImagePayload } from '../encoders/types.js';
import { embedDistinct } from './distinct-images.js';

const photo = (seed: number): ImagePayload => ({ bytes: new Uint8Array([0xff, 0xd8, seed, seed + 1]), mimeType: 'image/jpeg' });

describe('embedDistinct', () => {
  it('encodes a photo repeated across rounds once, and gives every round its own vector', async () => {
    const calls: number[] = [];
    const embed = async (unique: ImagePayload[]) => {
      calls.push(unique.length);
      return unique.map((image) => new Float32Array([image.bytes![2]!]));
    };
    // Equal content in different arrays (the same file read twice) counts as the same photo.
    const vectors = await embedDistinct([photo(1), photo(2), photo(1), { ...photo(2) }, photo(3)], embed);
    expect(calls).toEqual([3]);
    expect(vectors.map((vector) => vector[0])).toEqual([1, 2, 1, 2, 3]);
    vectors[2]![0] = 99;
    expect(vectors[0]![0]).toBe(1);
  });

  it('passes distinct images straight through', async () => {
    const seen: ImagePayload[][] = [];
    const images = [photo(1), photo(2), { caption: 'a red bike' }, { caption: 'a red bike' }];
    const vectors = await embedDistinct(images, async (unique) => {
      seen.push(unique);
      return unique.map(() => new Float32Array([1]));
    });
    expect(seen[0]).toHaveLength(3);
    expect(vectors).toHaveLength(4);
  });
});
