/** Image file formats told apart by their first bytes. */
export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'bmp' | 'avif' | 'heic';

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
  if (startsWith(bytes, 0, 'BM')) return 'bmp';
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
