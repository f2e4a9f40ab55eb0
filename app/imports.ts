/**
 * Imports of dialogue files that have not finished, kept in localStorage: a tab closed or a
 * failure mid-import leaves a memory with only some of the rounds, and the app must say so the next
 * time that memory opens, and offer to resume or delete it.
 */

/** An import that started and has not finished. */
export interface PendingImport {
  /** The memory the rounds go into. */
  readonly memory: string;
  /** The file the user chose; resuming asks for it again. */
  readonly fileName: string;
  /** The dialogue's own title, to check that a resumed file is the same dialogue. */
  readonly title: string;
  /** Rounds in the file. */
  readonly total: number;
  /** Rounds stored when last heard of. */
  readonly stored: number;
}

const PENDING_KEY = 'vmem:pending-imports';

/** Every import not finished, by memory name. */
export function pendingImports(storage: Storage = localStorage): Record<string, PendingImport> {
  try {
    const saved = JSON.parse(storage.getItem(PENDING_KEY) ?? '{}') as unknown;
    return typeof saved === 'object' && saved !== null && !Array.isArray(saved) ? (saved as Record<string, PendingImport>) : {};
  } catch {
    // A damaged entry only loses the offer to resume; the memories themselves are untouched.
    storage.removeItem(PENDING_KEY);
    return {};
  }
}

/** Records (or updates) an import in progress. */
export function notePendingImport(pending: PendingImport, storage: Storage = localStorage): void {
  storage.setItem(PENDING_KEY, JSON.stringify({ ...pendingImports(storage), [pending.memory]: pending }));
}

/** Forgets the import into `memory` (it finished, or the memory was deleted). */
export function clearPendingImport(memory: string, storage: Storage = localStorage): void {
  const { [memory]: _finished, ...rest } = pendingImports(storage);
  storage.setItem(PENDING_KEY, JSON.stringify(rest));
}
