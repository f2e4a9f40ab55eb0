import { roundsNearImages } from '../core/assemble.js';
import { imagesOf, type StoredRound } from '../types.js';

/**
 * The rounds of a memory in history order, with the lookups every verb needs. Replaced whole on each
 * write, so a reader never sees a half-applied change.
 */
export class History {
  readonly rounds: readonly StoredRound[];
  readonly indexOf: ReadonlyMap<string, number>;
  private readonly imageIds: ReadonlySet<string>;
  private nearImages: ReadonlySet<string> | undefined;

  constructor(rounds: readonly StoredRound[] = []) {
    this.rounds = rounds;
    this.indexOf = new Map(rounds.map((round, index) => [round.id, index]));
    this.imageIds = new Set(rounds.flatMap((round) => imagesOf(round).map((image) => image.id)));
  }

  get size(): number {
    return this.rounds.length;
  }

  get(roundId: string): StoredRound | undefined {
    const at = this.indexOf.get(roundId);
    return at === undefined ? undefined : this.rounds[at];
  }

  has(roundId: string): boolean {
    return this.indexOf.has(roundId);
  }

  hasImage(imageId: string): boolean {
    return this.imageIds.has(imageId);
  }

  roundOfImage(imageId: string): StoredRound | undefined {
    if (!this.imageIds.has(imageId)) return undefined;
    return this.rounds.find((round) => imagesOf(round).some((image) => image.id === imageId));
  }

  /** The `seq` the next added round gets. */
  nextSeq(): number {
    const last = this.rounds[this.rounds.length - 1];
    return last ? last.seq + 1 : 0;
  }

  /** Rounds with an image within ±1 in their session (computed once per history). */
  roundsNearImages(): ReadonlySet<string> {
    this.nearImages ??= roundsNearImages(
      this.rounds.map((round) => ({ id: round.id, sessionId: round.sessionId, hasImage: imagesOf(round).length > 0 })),
      1,
    );
    return this.nearImages;
  }

  appended(rounds: readonly StoredRound[]): History {
    return new History([...this.rounds, ...rounds]);
  }

  replaced(round: StoredRound): History {
    return new History(this.rounds.map((candidate) => (candidate.id === round.id ? round : candidate)));
  }

  without(roundId: string): History {
    return new History(this.rounds.filter((round) => round.id !== roundId));
  }
}
