import { VmemError } from '../errors.js';
import type { ImageEmbedder, TextEmbedder } from './types.js';

/**
 * An image encoder that embeds each image's caption with a text encoder (the benchmark's
 * `caption-proxy` mode, for data whose images have captions but no bytes). Its vectors live in the
 * text encoder's space, so the image lane compares captions with captions.
 * @example
 * const image = createCaptionProxyImageEncoder(text);
 * await image.embed([{ caption: 'A dog on a beach' }]); // = text.embed(['A dog on a beach'])
 */
export function createCaptionProxyImageEncoder(textEncoder: TextEmbedder): ImageEmbedder {
  return {
    id: `caption-proxy(${textEncoder.id})`,
    dimension: textEncoder.dimension,
    captionOnly: true,
    async embed(images) {
      const captions = images.map((image, index) => {
        const caption = image.caption?.trim();
        if (caption === undefined || caption === '') {
          throw new VmemError('INVALID_INPUT', `Image ${index} has no caption; the caption-proxy image encoder embeds captions, so give every image one.`);
        }
        return caption;
      });
      if (captions.length === 0) return [];
      return textEncoder.embed(captions);
    },
  };
}
