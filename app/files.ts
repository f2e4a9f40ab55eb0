/** Checks files a user attaches before anything is stored: type, size, and that the image decodes. */
import { VmemError, type ImageInput } from 'vmem';

/** Image types vmem keeps (the library checks each picture's bytes against its type too). */
export const ACCEPTED_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/bmp']);
/** Largest image accepted: 20 MiB. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
const MIB = 1024 * 1024;

/** What a picture is for: stored with a message, or asked with. Errors say what was not done. */
export type ImagePurpose = 'attach' | 'query';

const NOT_DONE: Readonly<Record<ImagePurpose, string>> = {
  attach: 'Nothing was added.',
  query: 'Choose another picture to ask with.',
};

/** An attachment that passed the checks, ready for `memory.add`. */
export interface CheckedImage extends ImageInput {
  readonly bytes: Uint8Array;
  readonly mimeType: string;
  readonly fileName: string;
}

/**
 * Reads an attached file as an image, or rejects with a typed error saying what to do:
 * `UNSUPPORTED_FILE` for other types or oversize files, `IMAGE_DECODE_FAILED` for damaged images.
 */
export async function readImageFile(file: File, purpose: ImagePurpose = 'attach'): Promise<CheckedImage> {
  const name = visibleFileName(file.name);
  const mimeType = file.type || guessType(file.name);
  const verb = purpose === 'attach' ? 'attach' : 'ask with';
  if (!ACCEPTED_IMAGE_TYPES.has(mimeType)) {
    throw new VmemError(
      'UNSUPPORTED_FILE',
      `"${name}" is ${mimeType ? `${article(mimeType)} ${mimeType} file` : 'not an image'}; ${verb} a JPEG, PNG, WebP, GIF, AVIF or BMP image. ${NOT_DONE[purpose]}`,
    );
  }
  if (file.size > MAX_IMAGE_BYTES) {
    throw new VmemError('UNSUPPORTED_FILE', `"${name}" is ${(file.size / MIB).toFixed(1)} MiB; ${verb} images of at most ${MAX_IMAGE_BYTES / MIB} MiB. ${NOT_DONE[purpose]}`);
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  await assertDecodes(bytes, mimeType, name, purpose);
  return { bytes, mimeType, fileName: name };
}

/** Rejects with `IMAGE_DECODE_FAILED` when the browser cannot decode the bytes. */
export async function assertDecodes(bytes: Uint8Array, mimeType: string, fileName: string, purpose: ImagePurpose = 'attach'): Promise<void> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeType }));
  } catch (error) {
    throw new VmemError('IMAGE_DECODE_FAILED', `"${fileName}" could not be read as an image: the file looks damaged or incomplete. Try another copy of it. ${NOT_DONE[purpose]}`, {
      cause: error,
    });
  }
  bitmap.close();
}

/**
 * A file name as it may be shown: without the characters that reorder text (a right-to-left override
 * makes "invoice\u202Egpj.exe" read "invoiceexe.jpg"), so the name reads as it is spelled.
 */
export function visibleFileName(name: string): string {
  return name.replace(/[\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]/g, '');
}

/** "a" or "an" before a MIME type, as it is read aloud ("an application/pdf file", "a text/html file"). */
function article(mimeType: string): string {
  return /^[aeio]/i.test(mimeType) ? 'an' : 'a';
}

function guessType(name: string): string {
  const extension = name.toLowerCase().split('.').pop() ?? '';
  const types: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', avif: 'image/avif', bmp: 'image/bmp' };
  return types[extension] ?? '';
}
