/**
 * Test-only: edits a `.vmem` file as someone with a text editor and a hex editor would, to check
 * that imports refuse what they should. The layout is in src/storage/idb-file.ts.
 */

/** A file's header as plain JSON, and its payload. */
export interface EditableMemoryFile {
  header: Record<string, any>;
  payload: Uint8Array;
}

/** Appends `bytes` to the payload and returns the slice that points at them. */
export function appendToPayload(file: EditableMemoryFile, bytes: Uint8Array): { offset: number; length: number } {
  const offset = file.payload.length;
  const grown = new Uint8Array(offset + bytes.length);
  grown.set(file.payload);
  grown.set(bytes, offset);
  file.payload = grown;
  return { offset, length: bytes.length };
}

/** The file after `edit` changed its header (and payload) in place. */
export function editMemoryFile(bytes: Uint8Array, edit: (file: EditableMemoryFile) => void): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(12, true);
  const file: EditableMemoryFile = {
    header: JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + headerLength))) as Record<string, any>,
    payload: bytes.slice(16 + headerLength),
  };
  edit(file);
  const header = new TextEncoder().encode(JSON.stringify(file.header));
  const out = new Uint8Array(16 + header.length + file.payload.length);
  out.set(bytes.subarray(0, 16));
  new DataView(out.buffer).setUint32(12, header.length, true);
  out.set(header, 16);
  out.set(file.payload, 16 + header.length);
  return out;
}
