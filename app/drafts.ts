/**
 * The message being stored, kept in localStorage until the memory has it: if the tab closes (or the
 * browser dies) during the add, the next visit says the message was not stored and puts its text
 * back. Pictures are not kept here (localStorage holds a few MB); the notice says to attach them again.
 */

/** A message that was being stored. */
export interface UnsentDraft {
  /** The memory it was going into. */
  readonly memory: string;
  /** The round id it would have been stored under. */
  readonly roundId: string;
  readonly user: string;
  readonly assistant: string;
  /** Pictures it had (not kept). */
  readonly pictures: number;
  /** Epoch ms of the attempt. */
  readonly at: number;
}

const DRAFT_KEY = 'vmem:unsent-draft';

export function saveUnsentDraft(draft: UnsentDraft, storage: Storage = localStorage): void {
  try {
    storage.setItem(DRAFT_KEY, JSON.stringify(draft));
  } catch {
    // A full localStorage only loses the offer to restore; the add itself goes on.
  }
}

export function clearUnsentDraft(storage: Storage = localStorage): void {
  storage.removeItem(DRAFT_KEY);
}

/** The draft of an add that never finished, if any. */
export function unsentDraft(storage: Storage = localStorage): UnsentDraft | undefined {
  try {
    const saved = JSON.parse(storage.getItem(DRAFT_KEY) ?? 'null') as unknown;
    if (typeof saved !== 'object' || saved === null) return undefined;
    const draft = saved as Partial<UnsentDraft>;
    return typeof draft.memory === 'string' && typeof draft.roundId === 'string' && typeof draft.user === 'string' && typeof draft.assistant === 'string'
      ? (draft as UnsentDraft)
      : undefined;
  } catch {
    clearUnsentDraft(storage);
    return undefined;
  }
}
