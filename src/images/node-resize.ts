/**
 * The Node image resizer: jpeg-js and pngjs decode, our area downscale shrinks, jpeg-js encodes.
 * Node only (pngjs needs Buffer and zlib): never import it from browser code.
 */
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import type { RgbaImage } from '../encoders/types.js';
import { VmemError } from '../errors.js';
import { downscaleRgba, flattenOnWhite } from './downscale.js';
import { assertMaxSide, assertQuality, fitWithin } from './fit.js';
import type { ImageResizer } from './types.js';

// A decoded 100-megapixel photo is 400 MB of RGBA; refuse larger rather than exhaust the heap.
const MAX_MEGAPIXELS = 100;

/**
 * Decodes a JPEG or PNG file to RGBA pixels. The format is read from the bytes, not the MIME type.
 * Rejects with `UNSUPPORTED_FILE` for other formats and `IMAGE_DECODE_FAILED` for damaged files.
 * @example const { width, height, data } = decodeImageNode(readFileSync('cat.jpg'));
 */
export function decodeImageNode(bytes: Uint8Array, mimeType?: string): RgbaImage {
  const format = sniffFormat(bytes);
  if (format === undefined) {
    throw new VmemError(
      'UNSUPPORTED_FILE',
      `The Node image resizer reads JPEG and PNG only, and these bytes${mimeType ? ` (labelled ${mimeType})` : ''} are neither; convert the image to JPEG or PNG.`,
    );
  }
  try {
    if (format === 'jpeg') {
      return jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_MEGAPIXELS, maxMemoryUsageInMB: 1024 });
    }
    const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return { width: png.width, height: png.height, data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength) };
  } catch (error) {
    throw new VmemError('IMAGE_DECODE_FAILED', `The ${format.toUpperCase()} image could not be decoded (${error instanceof Error ? error.message : String(error)}); the file looks damaged.`, {
      cause: error,
    });
  }
}

/**
 * `ImageResizer` for Node: JPEG or PNG in, JPEG out, longest side ≤ `maxSide`.
 * @example
 * const small = await nodeImageResizer(bytes, 'image/jpeg', 768, 80);
 */
export const nodeImageResizer: ImageResizer = async (bytes, mimeType, maxSide, quality) => {
  assertMaxSide(maxSide);
  assertQuality(quality);
  const decoded = decodeImageNode(bytes, mimeType);
  const size = fitWithin(decoded.width, decoded.height, maxSide);
  const flat = flattenOnWhite(decoded);
  const small = size.width === flat.width && size.height === flat.height ? flat : downscaleRgba(flat, size.width, size.height);
  const encoded = jpeg.encode({ width: small.width, height: small.height, data: small.data }, Math.round(quality));
  return { bytes: new Uint8Array(encoded.data.buffer, encoded.data.byteOffset, encoded.data.byteLength), mimeType: 'image/jpeg', width: small.width, height: small.height };
};

function sniffFormat(bytes: Uint8Array): 'jpeg' | 'png' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  return undefined;
}
