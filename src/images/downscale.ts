import type { RgbaImage } from '../encoders/types.js';
import { VmemError } from '../errors.js';

/** RGBA pixels we own (always a plain Uint8Array). */
export interface RgbaPixels extends RgbaImage {
  readonly data: Uint8Array;
}

/**
 * Shrinks RGBA pixels to `width × height` by area averaging: every output pixel is the mean of the
 * source pixels it covers, weighted by coverage. Unlike nearest or plain bilinear sampling this does
 * not alias when shrinking by large factors (a 4000 px photo to 768 px).
 * @example downscaleRgba({ width: 1600, height: 1200, data }, 768, 576)
 */
export function downscaleRgba(image: RgbaImage, width: number, height: number): RgbaPixels {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width > image.width || height > image.height) {
    throw new VmemError('INVALID_INPUT', `Can only shrink a ${image.width}×${image.height} image, not resize it to ${width}×${height}.`);
  }
  if (image.data.length < image.width * image.height * 4) {
    throw new VmemError('IMAGE_DECODE_FAILED', `The ${image.width}×${image.height} image has ${image.data.length} bytes of pixels; it is truncated.`);
  }
  const columns = coverage(image.width, width);
  const rows = coverage(image.height, height);
  // Horizontal pass into floats, then vertical pass: O(pixels), not O(pixels × window²).
  const across = new Float32Array(width * image.height * 4);
  for (let y = 0; y < image.height; y++) {
    const rowStart = y * image.width * 4;
    for (let x = 0; x < width; x++) {
      const { first, weights } = columns[x]!;
      let r = 0, g = 0, b = 0, a = 0;
      for (let i = 0; i < weights.length; i++) {
        const at = rowStart + (first + i) * 4;
        const w = weights[i]!;
        r += image.data[at]! * w;
        g += image.data[at + 1]! * w;
        b += image.data[at + 2]! * w;
        a += image.data[at + 3]! * w;
      }
      const out = (y * width + x) * 4;
      across[out] = r;
      across[out + 1] = g;
      across[out + 2] = b;
      across[out + 3] = a;
    }
  }
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const { first, weights } = rows[y]!;
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let i = 0; i < weights.length; i++) {
        const at = ((first + i) * width + x) * 4;
        const w = weights[i]!;
        r += across[at]! * w;
        g += across[at + 1]! * w;
        b += across[at + 2]! * w;
        a += across[at + 3]! * w;
      }
      const out = (y * width + x) * 4;
      data[out] = Math.round(r);
      data[out + 1] = Math.round(g);
      data[out + 2] = Math.round(b);
      data[out + 3] = Math.round(a);
    }
  }
  return { width, height, data };
}

/** For each output index, the first source index it covers and the normalised weight of each. */
function coverage(sourceSize: number, targetSize: number): { first: number; weights: Float32Array }[] {
  const scale = sourceSize / targetSize;
  return Array.from({ length: targetSize }, (_, index) => {
    const start = index * scale;
    const end = Math.min(sourceSize, (index + 1) * scale);
    const first = Math.floor(start);
    const last = Math.min(sourceSize, Math.ceil(end)) - 1;
    const weights = new Float32Array(last - first + 1);
    for (let source = first; source <= last; source++) {
      weights[source - first] = (Math.min(end, source + 1) - Math.max(start, source)) / scale;
    }
    return { first, weights };
  });
}

/**
 * Lays the pixels over white, as JPEG has no transparency: a transparent PNG would otherwise turn black.
 * Returns new pixels with alpha 255.
 */
export function flattenOnWhite(image: RgbaImage): RgbaPixels {
  const data = new Uint8Array(image.width * image.height * 4);
  for (let i = 0; i < data.length; i += 4) {
    const alpha = image.data[i + 3]! / 255;
    data[i] = Math.round(image.data[i]! * alpha + 255 * (1 - alpha));
    data[i + 1] = Math.round(image.data[i + 1]! * alpha + 255 * (1 - alpha));
    data[i + 2] = Math.round(image.data[i + 2]! * alpha + 255 * (1 - alpha));
    data[i + 3] = 255;
  }
  return { width: image.width, height: image.height, data };
}
