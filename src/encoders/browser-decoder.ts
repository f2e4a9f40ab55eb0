import { VmemError } from '../errors.js';
import { describeFormat, sniffImageFormat } from '../images/image-format.js';
import type { ImageDecoder } from './types.js';

/** Options of `createBrowserImageDecoder`. */
export interface BrowserDecoderOptions {
  /**
   * Longest side of the decoded pixels; bigger images are scaled down while drawing (keeps a 12 MP
   * photo from costing 48 MB of RGBA). The image encoder works at 224 px, so 448 loses nothing.
   * @default 448
   */
  readonly maxSide?: number;
}

/**
 * A browser image decoder: `createImageBitmap` plus an `OffscreenCanvas`, so it also runs in workers.
 * Reads what the browser reads (JPEG, PNG, GIF, WebP, usually AVIF). Rejects with `IMAGE_DECODE_FAILED`.
 * @example const encoder = createMobileNetImageEncoder({ decoder: createBrowserImageDecoder(), … })
 */
export function createBrowserImageDecoder(options: BrowserDecoderOptions = {}): ImageDecoder {
  const maxSide = options.maxSide === undefined ? 448 : options.maxSide;
  return async (bytes, mimeType) => {
    const type = mimeType ?? mimeOf(bytes);
    let bitmap: ImageBitmap;
    try {
      bitmap = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type }));
    } catch (cause) {
      throw new VmemError('IMAGE_DECODE_FAILED', `the browser could not decode ${describeFormat(bytes, mimeType)}; browsers read JPEG, PNG, GIF and WebP`, { cause });
    }
    try {
      const scale = Math.min(1, maxSide / Math.max(bitmap.width, bitmap.height));
      const width = Math.max(1, Math.round(bitmap.width * scale));
      const height = Math.max(1, Math.round(bitmap.height * scale));
      const canvas = new OffscreenCanvas(width, height);
      const context = canvas.getContext('2d', { willReadFrequently: true });
      if (context === null) throw new VmemError('IMAGE_DECODE_FAILED', 'OffscreenCanvas 2D context is unavailable in this browser');
      context.imageSmoothingQuality = 'high';
      context.drawImage(bitmap, 0, 0, width, height);
      const { data } = context.getImageData(0, 0, width, height);
      return { width, height, data };
    } finally {
      bitmap.close();
    }
  };
}

function mimeOf(bytes: Uint8Array): string {
  const format = sniffImageFormat(bytes);
  return format === undefined ? 'application/octet-stream' : `image/${format}`;
}
