/** How tools turn an image reference a model (or host) wrote into image bytes. */
import { VmemError } from '../errors.js';
import type { ImageInput } from '../types.js';
import { fromBase64 } from '../util/byte-text.js';

/**
 * Turns an image reference from a tool call (`recall`'s `image`, `remember`'s `images[].source`)
 * into an image. Reject with `INVALID_INPUT` and a message the model can act on.
 */
export type ImageSourceResolver = (source: string) => Promise<ImageInput>;

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?((?:;[\w-]+=[^;,]*)*);base64,([A-Za-z0-9+/=\s]*)$/;

/**
 * The image in a base64 `data:` URL. Rejects anything else with `INVALID_INPUT`.
 * @example await imageFromDataUrl('data:image/png;base64,iVBORw0…') // { bytes, mimeType: 'image/png' }
 */
export async function imageFromDataUrl(source: string): Promise<ImageInput> {
  const match = DATA_URL.exec(source.trim());
  if (!match) {
    throw new VmemError(
      'INVALID_INPUT',
      `An image must be given as a base64 data: URL such as "data:image/jpeg;base64,/9j/…" (got ${JSON.stringify(source.slice(0, 40))}).`,
    );
  }
  const bytes = fromBase64(match[3]!.replace(/\s+/g, ''));
  if (bytes.length === 0) throw new VmemError('INVALID_INPUT', 'The data: URL holds no bytes; send the picture itself.');
  return { bytes, ...(match[1] ? { mimeType: match[1].toLowerCase() } : {}) };
}
