/**
 * Which files count as pictures. A picture's declared type and its first bytes must agree, and both
 * must name a raster format on the allow-list: a file typed `text/html` or `image/svg+xml` (or HTML
 * bytes declared `image/png`) would become a `blob:` URL that runs script on the app's origin.
 */
import { VmemError } from '../errors.js';

/** Image file formats told apart by their first bytes. */
export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp' | 'avif' | 'heic';

/** The raster formats vmem keeps, with the one MIME type each is stored under. */
const PICTURE_TYPES = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  avif: 'image/avif',
  bmp: 'image/bmp',
} as const satisfies Partial<Record<ImageFormat, string>>;

/** A MIME type vmem stores pictures under. */
export type PictureType = (typeof PICTURE_TYPES)[keyof typeof PICTURE_TYPES];

/** Other spellings browsers and operating systems give the same formats. */
const ALIASES: Readonly<Record<string, PictureType>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'image/x-ms-bmp': 'image/bmp',
  'image/x-bmp': 'image/bmp',
};

const ALLOWED = new Set<string>(Object.values(PICTURE_TYPES));
/** Types that say nothing about the content. */
const UNDECLARED = new Set(['', 'application/octet-stream']);

/** The formats as a user reads them in an error message. */
export const PICTURE_FORMATS_TEXT = 'JPEG, PNG, WebP, GIF, AVIF or BMP';

/** Sizes of the BMP info headers that follow the 14-byte file header (core, v1–v5). */
const BMP_INFO_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

const startsWith = (bytes: Uint8Array, offset: number, ascii: string): boolean => {
  if (bytes.length < offset + ascii.length) return false;
  for (let i = 0; i < ascii.length; i++) if (bytes[offset + i] !== ascii.charCodeAt(i)) return false;
  return true;
};

/**
 * The format of an image file from its magic bytes (the MIME type a caller gives can be wrong).
 * @example sniffImageFormat(bytes) // 'jpeg' | 'png' | … | undefined
 */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (startsWith(bytes, 0, '\x89PNG\r\n\x1a\n')) return 'png';
  if (startsWith(bytes, 0, 'GIF87a') || startsWith(bytes, 0, 'GIF89a')) return 'gif';
  if (startsWith(bytes, 0, 'RIFF') && startsWith(bytes, 8, 'WEBP')) return 'webp';
  if (startsWith(bytes, 0, 'BM') && bytes.length >= 18 && BMP_INFO_HEADER_SIZES.has(new DataView(bytes.buffer, bytes.byteOffset + 14, 4).getUint32(0, true))) return 'bmp';
  if (startsWith(bytes, 4, 'ftyp')) {
    if (startsWith(bytes, 8, 'avif') || startsWith(bytes, 8, 'avis')) return 'avif';
    if (startsWith(bytes, 8, 'heic') || startsWith(bytes, 8, 'heix') || startsWith(bytes, 8, 'mif1')) return 'heic';
  }
  return undefined;
}

/** How an unrecognised or unsupported file is described in error messages. */
export function describeFormat(bytes: Uint8Array, mimeType: string | undefined): string {
  const sniffed = sniffImageFormat(bytes);
  if (sniffed !== undefined) return sniffed.toUpperCase();
  const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return `an unrecognised file (${bytes.length} bytes, starting ${head || 'empty'}${mimeType ? `, declared ${mimeType}` : ''})`;
}

/** A declared MIME type as vmem stores it (lower case, no parameters, one spelling per format), or undefined when it names no allowed picture format. */
function allowedType(declared: string): PictureType | undefined {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  const canonical = ALIASES[type] ?? type;
  return ALLOWED.has(canonical) ? (canonical as PictureType) : undefined;
}

/**
 * The type a picture's bytes prove, whatever it was declared as: how stored pictures are read back,
 * so a memory written before types were checked still never yields a non-picture type.
 * @throws VmemError `UNSUPPORTED_FILE` when the bytes are not an allowed raster picture.
 */
export function pictureTypeOf(bytes: Uint8Array, where: string, declared?: string): PictureType {
  const format = sniffImageFormat(bytes);
  if (format === undefined || format === 'heic') {
    throw new VmemError('UNSUPPORTED_FILE', `${where} is ${describeFormat(bytes, declared)}, not a ${PICTURE_FORMATS_TEXT} picture; only those can be kept.`);
  }
  return PICTURE_TYPES[format];
}

/**
 * The MIME type to store a picture under, after checking that its declared type (when given) is an
 * allowed raster type and that its bytes (when given) are that format. `application/octet-stream`
 * and an empty type count as undeclared: the bytes then decide. `where` names the picture in the
 * error, e.g. `round "r1", user image #1`.
 * @throws VmemError `UNSUPPORTED_FILE` for any other type, or bytes that are not the declared picture.
 */
export function vetPicture(bytes: Uint8Array | undefined, declared: string | undefined, where: string): PictureType | undefined {
  if (declared !== undefined && typeof declared !== 'string') throw new VmemError('INVALID_INPUT', `${where} has a mimeType that is not a string.`);
  const stated = declared === undefined || UNDECLARED.has(declared.trim().toLowerCase()) ? undefined : declared;
  const claimed = stated === undefined ? undefined : allowedType(stated);
  if (stated !== undefined && claimed === undefined) {
    throw new VmemError('UNSUPPORTED_FILE', `${where} has type "${stated}"; only ${PICTURE_FORMATS_TEXT} pictures can be kept.`);
  }
  if (bytes === undefined) return claimed;
  const actual = pictureTypeOf(bytes, where, stated);
  if (claimed !== undefined && claimed !== actual) {
    throw new VmemError(
      'UNSUPPORTED_FILE',
      `${where} is declared ${claimed} but its bytes are a ${sniffImageFormat(bytes)!.toUpperCase()} picture; pass mimeType '${actual}' (or none, and it is read from the bytes).`,
    );
  }
  return actual;
}

/** The image with `mimeType` set to its vetted type (see `vetPicture`). */
export function withVettedType<T extends { readonly bytes?: Uint8Array; readonly mimeType?: string }>(image: T, where: string): T {
  const mimeType = vetPicture(image.bytes, image.mimeType, where);
  return mimeType === undefined ? image : { ...image, mimeType };
}
