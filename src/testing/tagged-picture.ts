/**
 * Stand-in pictures for tests with fake image encoders: a JPEG's first bytes (so they pass vmem's
 * picture check) followed by a word the fake encoder reads back instead of pixels.
 */
const JPEG_START = [0xff, 0xd8, 0xff, 0xe0];
const TAG = 'IMG:';

/** The bytes of a stand-in JPEG that "shows" `word`. */
export function taggedPictureBytes(word: string): Uint8Array {
  return Uint8Array.from([...JPEG_START, ...new TextEncoder().encode(`${TAG}${word}`)]);
}

/** The word a stand-in picture shows, or undefined for any other bytes (a real or damaged picture). */
export function pictureTag(bytes: Uint8Array): string | undefined {
  if (JPEG_START.some((byte, i) => bytes[i] !== byte)) return undefined;
  const text = new TextDecoder().decode(bytes.subarray(JPEG_START.length));
  return text.startsWith(TAG) ? text.slice(TAG.length) : undefined;
}

/** A stand-in JPEG that no encoder can decode: the right first bytes, then nothing of a picture. */
export const DAMAGED_JPEG = Uint8Array.from([...JPEG_START, 1, 2, 3]);
