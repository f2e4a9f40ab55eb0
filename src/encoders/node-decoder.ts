import jpeg from 'jpeg-js';
import pngjs from 'pngjs';
import { VmemError } from '../errors.js';
import { describeFormat, sniffImageFormat } from '../images/image-format.js';
import type { ImageDecoder, RgbaImage } from './types.js';

/** What the Node decoder reads. */
export const NODE_DECODER_FORMATS = 'JPEG and PNG';

/**
 * Node image decoder (pure JS: jpeg-js and pngjs). The format comes from the file's magic bytes; the
 * MIME type is only used in messages. Rejects with `IMAGE_DECODE_FAILED` for other formats or damaged
 * files.
 * @example const { width, height, data } = await decodeImageNode(readFileSync('photo.jpg'));
 */
export const decodeImageNode: ImageDecoder = async (bytes, mimeType) => decodeImageNodeSync(bytes, mimeType);

/** `decodeImageNode` without the promise, for callers that decode in a tight synchronous loop. */
export function decodeImageNodeSync(bytes: Uint8Array, mimeType?: string): RgbaImage {
  const format = sniffImageFormat(bytes);
  try {
    if (format === 'jpeg') {
      // 64 MP, 1 GiB: a camera photo passes, a decompression bomb does not.
      const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 64, maxMemoryUsageInMB: 1024 });
      return asRgba(image.width, image.height, image.data);
    }
    if (format === 'png') {
      const image = pngjs.PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return asRgba(image.width, image.height, new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength));
    }
  } catch (cause) {
    throw new VmemError('IMAGE_DECODE_FAILED', `damaged ${format === 'png' ? 'PNG' : 'JPEG'} (${String((cause as Error)?.message ?? cause)}); the Node decoder reads ${NODE_DECODER_FORMATS}`, { cause });
  }
  throw new VmemError('IMAGE_DECODE_FAILED', `${describeFormat(bytes, mimeType)} is not supported; the Node decoder reads ${NODE_DECODER_FORMATS}`);
}

function asRgba(width: number, height: number, data: Uint8Array): RgbaImage {
  if (width < 1 || height < 1 || data.length !== width * height * 4) {
    throw new Error(`decoded to ${width}×${height} with ${data.length} bytes of pixels`);
  }
  return { width, height, data };
}
