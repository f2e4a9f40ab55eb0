/**
 * A tiny deterministic image encoder for tests: the picture's 16×16 grayscale thumbnail, centred.
 * The same photo (re-encoded, resized, or a video frame of it) lands close to itself; different
 * photos land apart. No model, so tests run anywhere. Not for production retrieval.
 */
import type { ImageDecoder, ImageEmbedder } from '../../encoders/types.js';
import { VmemError } from '../../errors.js';
import { grayThumbnail } from '../../video/gray.js';

/**
 * @example
 * const imageEncoder = createThumbImageEncoder(async (bytes) => decodeImageNode(bytes));
 */
export function createThumbImageEncoder(decode: ImageDecoder, size = 16): ImageEmbedder {
  return {
    id: `thumb-gray-${size}`,
    dimension: size * size,
    async embed(images) {
      return Promise.all(
        images.map(async (image, index) => {
          if (!image.bytes) throw new VmemError('IMAGE_DECODE_FAILED', `Image #${index + 1} has no bytes; the thumbnail encoder needs pixels.`);
          const thumb = grayThumbnail(await decode(image.bytes, image.mimeType), size);
          const mean = thumb.data.reduce((sum, value) => sum + value, 0) / thumb.data.length;
          const vector = Float32Array.from(thumb.data, (value) => value - mean);
          const norm = Math.hypot(...vector) || 1;
          return vector.map((value) => value / norm);
        }),
      );
    },
  };
}
