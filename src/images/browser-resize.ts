/** The browser image resizer: the browser decodes (any format it reads), shrinks and encodes JPEG. */
import { VmemError } from '../errors.js';
import { assertMaxSide, assertQuality, fitWithin } from './fit.js';
import type { ImageResizer } from './types.js';

/**
 * `ImageResizer` for browsers and workers: `createImageBitmap` decodes and shrinks (high-quality
 * resampling, EXIF orientation applied), an `OffscreenCanvas` encodes JPEG.
 * @example
 * const small = await browserImageResizer(bytes, 'image/webp', 768, 80);
 */
export const browserImageResizer: ImageResizer = async (bytes, mimeType, maxSide, quality) => {
  assertMaxSide(maxSide);
  assertQuality(quality);
  const blob = new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeType });
  let original: ImageBitmap;
  try {
    original = await createImageBitmap(blob);
  } catch (error) {
    throw new VmemError('IMAGE_DECODE_FAILED', `This browser could not decode the ${mimeType || 'image'} file; it looks damaged or is in a format the browser does not read.`, {
      cause: error,
    });
  }
  const size = fitWithin(original.width, original.height, maxSide);
  let small: ImageBitmap;
  try {
    small = await createImageBitmap(original, { resizeWidth: size.width, resizeHeight: size.height, resizeQuality: 'high' });
  } finally {
    original.close();
  }
  try {
    const canvas = new OffscreenCanvas(size.width, size.height);
    const context = canvas.getContext('2d');
    if (!context) throw new VmemError('IMAGE_DECODE_FAILED', 'This browser gave no 2D canvas to re-encode the image; try another browser.');
    // JPEG has no transparency: lay the picture over white so transparent areas do not turn black.
    context.fillStyle = '#fff';
    context.fillRect(0, 0, size.width, size.height);
    context.drawImage(small, 0, 0);
    const jpegBlob = await canvas.convertToBlob({ type: 'image/jpeg', quality: quality / 100 });
    return { bytes: new Uint8Array(await jpegBlob.arrayBuffer()), mimeType: 'image/jpeg', width: size.width, height: size.height };
  } finally {
    small.close();
  }
};
