/** `data:` URLs of pictures, in Node and browsers alike, only ever with a vetted picture type. */
import { vetPicture } from './image-format.js';

/**
 * The picture as a base64 `data:` URL under the type its bytes prove (see `vetPicture`).
 * @throws VmemError `UNSUPPORTED_FILE` when the bytes are not an allowed raster picture.
 */
export function pictureDataUrl(bytes: Uint8Array, mimeType: string | undefined, where: string): string {
  const type = vetPicture(bytes, mimeType, where)!;
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return `data:${type};base64,${btoa(binary)}`;
}
