/** The image-downscaling port: answering, tools and enrichment shrink pictures before an LLM sees them. */

/** A picture after downscaling: always JPEG. */
export interface ResizedImage {
  readonly bytes: Uint8Array;
  readonly mimeType: 'image/jpeg';
  /** Pixel size after downscaling. */
  readonly width: number;
  readonly height: number;
}

/**
 * Decodes an image file, shrinks it so its longest side is at most `maxSide` pixels (never enlarges),
 * and re-encodes it as JPEG at `quality` (1–100). Transparent areas become white.
 * Rejects with `VmemError('IMAGE_DECODE_FAILED')` for bytes it cannot decode and
 * `VmemError('UNSUPPORTED_FILE')` for a format it does not read.
 * Node: `nodeImageResizer`; browsers: `browserImageResizer`.
 * @example
 * const small = await resizer(bytes, 'image/png', 768, 80); // { bytes, mimeType: 'image/jpeg', width, height }
 */
export type ImageResizer = (bytes: Uint8Array, mimeType: string, maxSide: number, quality: number) => Promise<ResizedImage>;

/** Longest side, in pixels, of a picture sent to an LLM. */
export const LLM_IMAGE_MAX_SIDE = 768;
/** JPEG quality (1–100) of a picture sent to an LLM. */
export const LLM_IMAGE_QUALITY = 80;
