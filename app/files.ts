/** Checks files a user attaches before anything is stored: type, size, and that the image decodes. */
import { VmemError, type ImageInput } from 'vmem';

/** Image types the encoders can read. */
export const ACCEPTED_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/bmp']);
/** Largest image accepted, in bytes. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

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
export async function readImageFile(file: File): Promise<CheckedImage> {
  const mimeType = file.type || guessType(file.name);
  if (!ACCEPTED_IMAGE_TYPES.has(mimeType)) {
    throw new VmemError(
      'UNSUPPORTED_FILE',
      `"${file.name}" is ${mimeType ? `a ${mimeType} file` : 'not an image'}; attach a JPEG, PNG, WebP, GIF or BMP image. Nothing was added.`,
    );
  }
  if (file.size > MAX_IMAGE_BYTES) {
    throw new VmemError('UNSUPPORTED_FILE', `"${file.name}" is ${(file.size / 1e6).toFixed(1)} MB; attach images under ${MAX_IMAGE_BYTES / 1024 / 1024} MB.`);
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  await assertDecodes(bytes, mimeType, file.name);
  return { bytes, mimeType, fileName: file.name };
}

/** Rejects with `IMAGE_DECODE_FAILED` when the browser cannot decode the bytes. */
export async function assertDecodes(bytes: Uint8Array, mimeType: string, fileName: string): Promise<void> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeType }));
  } catch (error) {
    throw new VmemError('IMAGE_DECODE_FAILED', `"${fileName}" could not be read as an image: the file looks damaged or incomplete. Try another copy of it. Nothing was added.`, {
      cause: error,
    });
  }
  bitmap.close();
}

function guessType(name: string): string {
  const extension = name.toLowerCase().split('.').pop() ?? '';
  const types: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', bmp: 'image/bmp' };
  return types[extension] ?? '';
}
