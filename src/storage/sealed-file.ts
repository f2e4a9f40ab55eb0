/**
 * An encrypted `.vmem` export: the plain export (idb-file.ts) sealed whole under a data key, with the
 * key record that unwraps it in front, so it imports with its passphrase alone.
 *
 * Layout: 8-byte magic `VMEMSEAL`, u32 format version, u32 key-record length (little-endian), the
 * key record as UTF-8 JSON, then the sealed export (sealer.ts: version, nonce, ciphertext + tag).
 */
import { VmemError } from '../errors.js';
import { createDataKey, SealError, unwrapDataKey, type DataKey, type KeyRecord, type Unlock } from './sealer.js';

const MAGIC = 'VMEMSEAL';
const FORMAT_VERSION = 1;
const PREAMBLE_BYTES = 16;

/** Whether `bytes` start like an encrypted export. */
export function isSealedMemoryFile(bytes: Uint8Array): boolean {
  return bytes.byteLength >= PREAMBLE_BYTES && new TextDecoder().decode(bytes.subarray(0, 8)) === MAGIC;
}

/** `plain` (a `.vmem` export) sealed under the memory's own data key and record, or under a new key for `unlock`. */
export async function sealMemoryFile(plain: Blob, keys: { key: DataKey; record: KeyRecord } | Unlock): Promise<Blob> {
  const { key, record } = 'record' in keys ? keys : await createDataKey(keys);
  const sealed = await key.sealer.seal('export', '', new Uint8Array(await plain.arrayBuffer()));
  const recordBytes = new TextEncoder().encode(JSON.stringify(record));
  const preamble = new Uint8Array(PREAMBLE_BYTES);
  preamble.set(new TextEncoder().encode(MAGIC), 0);
  const view = new DataView(preamble.buffer);
  view.setUint32(8, FORMAT_VERSION, true);
  view.setUint32(12, recordBytes.byteLength, true);
  return new Blob([preamble, recordBytes, sealed as Uint8Array<ArrayBuffer>], { type: 'application/vnd.vmem' });
}

/**
 * The plain export inside an encrypted one.
 * @throws VmemError `PASSPHRASE_REQUIRED` without `unlock`, `WRONG_PASSPHRASE`, `INTEGRITY_ERROR` for a file changed after export, `INVALID_INPUT` for a damaged one
 */
export async function openMemoryFile(bytes: Uint8Array, unlock: Unlock | undefined): Promise<Uint8Array> {
  if (!unlock) throw new VmemError('PASSPHRASE_REQUIRED', 'This memory export is encrypted; import it with its passphrase (the `encryption` option).');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== FORMAT_VERSION) throw new VmemError('INVALID_INPUT', `This encrypted memory export has format version ${version}; this vmem reads ${FORMAT_VERSION}. Upgrade vmem to import it.`);
  const recordEnd = PREAMBLE_BYTES + view.getUint32(12, true);
  let record: KeyRecord;
  try {
    record = JSON.parse(new TextDecoder().decode(bytes.subarray(PREAMBLE_BYTES, recordEnd))) as KeyRecord;
  } catch (error) {
    throw new VmemError('INVALID_INPUT', 'The key record of this encrypted memory export is damaged; export the memory again.', { cause: error });
  }
  const key = await unwrapDataKey(record, unlock, 'this memory export');
  try {
    return await key.sealer.open('export', '', bytes.subarray(recordEnd));
  } catch (error) {
    if (error instanceof SealError) throw new VmemError('INTEGRITY_ERROR', 'This encrypted memory export was changed or damaged after it was made; export the memory again.', { cause: error });
    throw error;
  }
}
