/** Decodes an image file to RGBA in a browser (`createImageBitmap` + canvas): an `ImageDecoder` for browser tests. */
import type { ImageDecoder } from '../../encoders/types.js';
import { VmemError } from '../../errors.js';

/** @example const { width, height, data } = await decodeInBrowser(bytes, 'image/jpeg'); */
export const decodeInBrowser: ImageDecoder = async (bytes, mimeType) => {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeType ?? '' }));
  } catch (error) {
    throw new VmemError('IMAGE_DECODE_FAILED', 'The browser could not decode the image.', { cause: error });
  }
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d')!;
  context.drawImage(bitmap, 0, 0);
  bitmap.close();
  return context.getImageData(0, 0, canvas.width, canvas.height);
};
