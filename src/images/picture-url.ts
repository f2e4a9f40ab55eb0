/** `data:` URLs of pictures, in Node and browsers alike, only ever with a vetted picture type. */
import { toBase64 } from '../util/byte-text.js';
import { vetPicture } from './image-format.js';

/**
 * The picture as a base64 `data:` URL under the type its bytes prove (see `vetPicture`).
 * @throws VmemError `UNSUPPORTED_FILE` when the bytes are not an allowed raster picture.
 */
export function pictureDataUrl(bytes: Uint8Array, mimeType: string | undefined, where: string): string {
  const type = vetPicture(bytes, mimeType, where)!;
  return `data:${type};base64,${toBase64(bytes)}`;
}
