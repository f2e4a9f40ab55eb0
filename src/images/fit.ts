import { VmemError } from '../errors.js';

/**
 * The size that fits `width × height` within `maxSide` on its longest side, keeping the aspect ratio.
 * Never enlarges; every side is at least 1 pixel.
 * @example fitWithin(1600, 1200, 768) // { width: 768, height: 576 }
 */
export function fitWithin(width: number, height: number, maxSide: number): { width: number; height: number } {
  if (!(width > 0 && height > 0)) throw new VmemError('IMAGE_DECODE_FAILED', `The image reports a size of ${width}×${height}; it looks damaged.`);
  assertMaxSide(maxSide);
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Rejects a `maxSide` that is not a whole number of pixels ≥ 1. */
export function assertMaxSide(maxSide: number): void {
  if (!Number.isInteger(maxSide) || maxSide < 1) {
    throw new VmemError('INVALID_INPUT', `maxSide must be a whole number of pixels ≥ 1, got ${String(maxSide)}.`);
  }
}

/** Rejects a JPEG quality outside 1–100. */
export function assertQuality(quality: number): void {
  if (!Number.isFinite(quality) || quality < 1 || quality > 100) {
    throw new VmemError('INVALID_INPUT', `JPEG quality must be between 1 and 100, got ${String(quality)}.`);
  }
}
