/** Bytes as base64 or hex text and back, in browsers and Node alike (`btoa`/`atob` speak binary strings). */

/** Base64 of `bytes`, built in slices so `String.fromCharCode` gets few arguments at a time. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.byteLength; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

/** The bytes of base64 text. @throws DOMException `InvalidCharacterError` for text that is not base64 */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let at = 0; at < binary.length; at++) bytes[at] = binary.charCodeAt(at);
  return bytes;
}

/** Lower-case hex, two digits a byte. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
