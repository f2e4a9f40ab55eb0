/** A memory as one `.vmem` file, encrypted when the memory is (or when given its own passphrase). */
import { encodeMemoryFile } from '../storage/idb-file.js';
import { sealedKeyOf } from '../storage/encrypted-storage.js';
import { sealMemoryFile } from '../storage/sealed-file.js';
import type { Unlock } from '../storage/sealer.js';
import { memoryContents, storageOf } from './memory.js';
import type { Memory } from './types.js';

/** Options of `exportMemory`. */
export interface ExportOptions {
  /**
   * Encrypts the export under this passphrase (or key) of its own. Without it, an encrypted
   * memory's export is encrypted under the memory's passphrase, and another memory's is plain.
   * @default the memory's own encryption, if any
   */
  readonly encryption?: Unlock;
}

/**
 * Everything the memory holds (rounds, units with their vectors, image bytes) as one `.vmem` file.
 * @example await writeFile('backup.vmem', new Uint8Array(await (await exportMemory(memory)).arrayBuffer()));
 */
export async function exportMemory(memory: Memory, options: ExportOptions = {}): Promise<Blob> {
  const plain = encodeMemoryFile(await memoryContents(memory));
  const keys = options.encryption ?? sealedKeyOf(storageOf(memory));
  return keys ? sealMemoryFile(plain, keys) : plain;
}
