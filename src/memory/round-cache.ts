import type { MemoryStorage } from '../storage/types.js';
import type { StoredRound } from '../types.js';

/** Rounds a memory keeps read: enough for a few results and their context, small beside the index. */
const ROUND_CACHE_SIZE = 2_048;

/**
 * The rounds last read from storage (or written), least recently used dropped first. Rounds stay in
 * storage until a result, an edit or an answer needs them; this keeps the ones in use at hand.
 */
export class RoundCache {
  private readonly rounds = new Map<string, StoredRound>();
  /** Counts writes, so a read that a write overtook does not put its older copy back. */
  private writes = 0;

  constructor(
    private readonly storage: MemoryStorage,
    private readonly capacity = ROUND_CACHE_SIZE,
  ) {}

  /** The rounds by id, read from storage where not cached; ids not stored are left out. */
  async load(roundIds: readonly string[]): Promise<Map<string, StoredRound>> {
    const out = new Map<string, StoredRound>();
    const missing: string[] = [];
    for (const id of roundIds) {
      const round = this.rounds.get(id);
      if (round) {
        this.touch(id, round);
        out.set(id, round);
      } else if (!out.has(id)) {
        missing.push(id);
      }
    }
    if (missing.length > 0) {
      const writes = this.writes;
      const read = await this.storage.getRounds(missing);
      // A long read (an export) must not flush the working set: only what fits is kept.
      const keep = writes === this.writes && missing.length <= this.capacity;
      missing.forEach((id, at) => {
        const round = read[at];
        if (!round) return;
        out.set(id, round);
        if (keep) this.touch(id, round);
      });
    }
    return out;
  }

  async get(roundId: string): Promise<StoredRound | undefined> {
    return (await this.load([roundId])).get(roundId);
  }

  /** A round just written (its new version). */
  put(round: StoredRound): void {
    this.writes++;
    this.touch(round.id, round);
  }

  delete(roundId: string): void {
    this.writes++;
    this.rounds.delete(roundId);
  }

  clear(): void {
    this.writes++;
    this.rounds.clear();
  }

  private touch(id: string, round: StoredRound): void {
    this.rounds.delete(id);
    this.rounds.set(id, round);
    if (this.rounds.size > this.capacity) this.rounds.delete(this.rounds.keys().next().value!);
  }
}
