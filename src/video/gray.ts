/** Small grayscale thumbnails: what frame differencing compares. */
import type { RgbaImage } from '../encoders/types.js';
import { VmemError } from '../errors.js';
import { downscaleRgba } from '../images/downscale.js';

/** One byte of luminance per pixel. */
export interface GrayImage {
  readonly width: number;
  readonly height: number;
  /** width × height bytes, row by row. */
  readonly data: Uint8Array;
}

/** Default side of the square thumbnails compared by frame differencing. */
export const DEFAULT_THUMB_SIZE = 64;

/**
 * Shrinks RGBA pixels to a `size × size` luminance thumbnail (aspect ratio ignored: both frames of a
 * comparison come from the same video, so squashing them alike changes nothing).
 * @example const thumb = grayThumbnail(frame, 64);
 */
export function grayThumbnail(image: RgbaImage, size = DEFAULT_THUMB_SIZE): GrayImage {
  const small = image.width === size && image.height === size ? image : downscaleRgba(image, Math.min(size, image.width), Math.min(size, image.height));
  return toGray(small.width === size && small.height === size ? small : stretch(small, size));
}

/** Rec. 601 luma of each RGBA pixel. */
export function toGray(image: RgbaImage): GrayImage {
  const data = new Uint8Array(image.width * image.height);
  for (let i = 0; i < data.length; i++) {
    data[i] = Math.round(0.299 * image.data[i * 4]! + 0.587 * image.data[i * 4 + 1]! + 0.114 * image.data[i * 4 + 2]!);
  }
  return { width: image.width, height: image.height, data };
}

// Frames smaller than the thumbnail (rare: tiny videos) are enlarged by nearest neighbour.
function stretch(image: RgbaImage, size: number): RgbaImage {
  const data = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const from = (Math.floor((y * image.height) / size) * image.width + Math.floor((x * image.width) / size)) * 4;
      data.set(image.data.subarray(from, from + 4), (y * size + x) * 4);
    }
  }
  return { width: size, height: size, data };
}

/**
 * Mean absolute difference of two thumbnails, from 0 (identical) to 1 (black against white).
 * @example meanAbsDiff(a, a) // 0
 */
export function meanAbsDiff(a: GrayImage, b: GrayImage): number {
  if (a.width !== b.width || a.height !== b.height) {
    throw new VmemError('INVALID_INPUT', `Cannot compare a ${a.width}×${a.height} thumbnail with a ${b.width}×${b.height} one; make them the same size.`);
  }
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
  return sum / (a.data.length * 255);
}
