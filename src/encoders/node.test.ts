import { describe, expect, it } from 'vitest';
import { createNodeEmbeddedEncoders } from './node.js';
import { readFixturePhoto } from '../testing/shared-data.js';

describe('createNodeEmbeddedEncoders', () => {
  it('gives a USE-Lite text encoder and a MobileNet image encoder that work side by side', async () => {
    const { text, image } = createNodeEmbeddedEncoders();
    const [[t], [i]] = await Promise.all([text.embed(['a cup of coffee']), image!.embed([{ bytes: readFixturePhoto('sk_coffee.jpg') }])]);
    expect(t!.length).toBe(text.dimension);
    expect(i!.length).toBe(image!.dimension);
    expect([text.dimension, image!.dimension]).toEqual([512, 1280]);
    await Promise.all([text.dispose(), image!.dispose?.()]);
  });

  it('offers caption-proxy images in the text space, and no image encoder under none', async () => {
    const { text, image } = createNodeEmbeddedEncoders({ image: 'caption-proxy' });
    expect(image!.captionOnly).toBe(true);
    expect(image!.id).toBe(`caption-proxy(${text.id})`);
    const [fromImage] = await image!.embed([{ caption: 'a dog on the beach' }]);
    const [fromText] = await text.embed(['a dog on the beach']);
    expect(Array.from(fromImage!)).toEqual(Array.from(fromText!));
    expect(createNodeEmbeddedEncoders({ image: 'none' }).image).toBeUndefined();
    await text.dispose();
  });
});
