/** Encodes bytes as a `data:` URL, in Node and browsers alike. */
export function bytesToDataUrl(bytes: Uint8Array, mimeType: string): string {
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return `data:${mimeType};base64,${btoa(binary)}`;
}
