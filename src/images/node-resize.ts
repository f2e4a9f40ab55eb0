/**
 * The Node image resizer: the Node decoder reads, our area downscale shrinks, jpeg-js encodes.
 * Node only (pngjs needs Buffer and zlib): never import it from browser code.
 */
import jpeg from 'jpeg-js';
import { decodeImageNode } from '../encoders/node-decoder.js';
import { downscaleRgba, flattenOnWhite } from './downscale.js';
import { assertMaxSide, assertQuality, fitWithin } from './fit.js';
import type { ImageResizer } from './types.js';

/**
 * `ImageResizer` for Node: JPEG or PNG in, JPEG out, longest side ≤ `maxSide`.
 * @example
 * const small = await nodeImageResizer(bytes, 'image/jpeg', 768, 80);
 */
export const nodeImageResizer: ImageResizer = async (bytes, mimeType, maxSide, quality) => {
  assertMaxSide(maxSide);
  assertQuality(quality);
  const decoded = await decodeImageNode(bytes, mimeType);
  const size = fitWithin(decoded.width, decoded.height, maxSide);
  const flat = flattenOnWhite(decoded);
  const small = size.width === flat.width && size.height === flat.height ? flat : downscaleRgba(flat, size.width, size.height);
  const encoded = jpeg.encode({ width: small.width, height: small.height, data: small.data }, Math.round(quality));
  return { bytes: new Uint8Array(encoded.data.buffer, encoded.data.byteOffset, encoded.data.byteLength), mimeType: 'image/jpeg', width: small.width, height: small.height };
};
