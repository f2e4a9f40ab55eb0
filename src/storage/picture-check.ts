/** The stores' last line against a non-picture kept as a picture (see `vetPicture`). */
import { VmemError } from '../errors.js';
import { vetPicture } from '../images/image-format.js';
import { imagesOf } from '../types.js';
import type { RoundRecord } from './types.js';

/** The type an encrypted memory hands its store a picture under: the bytes are sealed, their real type with them (encrypted-storage.ts checks the pictures before sealing). */
export const SEALED_IMAGE_TYPE = 'application/vnd.vmem.sealed';

/**
 * Refuses records whose pictures are not allowed raster pictures stored under their own type, before
 * anything is written, naming the round and the type.
 * @throws VmemError `UNSUPPORTED_FILE`
 */
export function assertStorablePictures(records: readonly RoundRecord[]): void {
  for (const { round, images } of records) {
    for (const ref of imagesOf(round)) vetPicture(undefined, ref.mimeType, `round "${round.id}", image "${ref.id}"`);
    for (const image of images) {
      if (image.mimeType === SEALED_IMAGE_TYPE) continue;
      const where = `round "${round.id}", image "${image.id}"`;
      const type = vetPicture(image.bytes, image.mimeType, where);
      if (type !== image.mimeType) {
        throw new VmemError('UNSUPPORTED_FILE', `${where} is stored as "${image.mimeType}"; pictures are stored under their exact type, here ${type}.`);
      }
    }
  }
}
