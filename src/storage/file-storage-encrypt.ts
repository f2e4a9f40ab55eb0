/** Encrypting a memory folder where it lies (see `encryptStorageInPlace`). */
import type { ProgressCallback } from '../progress.js';
import { encryptStorageInPlace } from './encrypted-storage.js';
import { compactMemoryFolder, createFileStorage } from './file-storage.js';
import type { Unlock } from './sealer.js';

/**
 * Encrypts the memory in the folder `dir` under `encryption`, in place, with progress (task
 * `encrypt`, unit `rounds`). Killed part-way, every round stays whole: call it again (or open the
 * folder with the passphrase) to finish. From its first step on, the folder opens only with the
 * passphrase. The memory must not be open meanwhile (`MEMORY_LOCKED`). At the end the round log is
 * rewritten without the plain rounds (what the disk itself keeps of deleted blocks is beyond vmem).
 * @example await encryptMemoryFolder('./my-memory', { passphrase }, { onProgress: console.log });
 */
export async function encryptMemoryFolder(dir: string, encryption: Unlock, options: { readonly onProgress?: ProgressCallback } = {}): Promise<void> {
  const storage = await createFileStorage(dir);
  try {
    await encryptStorageInPlace(storage, encryption, options.onProgress);
  } finally {
    await storage.close();
  }
  // The log is append-only: the plain rounds' bytes stay in it until it is rewritten.
  await compactMemoryFolder(dir);
}
