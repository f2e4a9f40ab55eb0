import { roundsNearImages } from '../core/assemble.js';
import type { RoundFacts } from '../storage/types.js';
import { VISION_LLM_DESCRIBER } from './derived.js';

/**
 * The rounds of a memory in history order, as their facts (ids, sessions, times, picture ids): what
 * ranking, filters and every verb's checks need. The rounds themselves stay in storage. Appends,
 * replacements and removals change it in place; a retrieval ranks on it synchronously and names the
 * rounds it needs by id, so a change between ranking and reading never shifts what it returns.
 */
export class History {
  private facts: RoundFacts[];
  private positions = new Map<string, number>();
  private readonly roundOfImageId = new Map<string, string>();
  private nearImages: ReadonlySet<string> | undefined;
  private sessions: Map<string, number[]> | undefined;

  constructor(rounds: readonly RoundFacts[] = []) {
    this.facts = [...rounds];
    this.facts.forEach((round, at) => this.index(round, at));
  }

  get rounds(): readonly RoundFacts[] {
    return this.facts;
  }

  get indexOf(): ReadonlyMap<string, number> {
    return this.positions;
  }

  get size(): number {
    return this.facts.length;
  }

  get(roundId: string): RoundFacts | undefined {
    const at = this.positions.get(roundId);
    return at === undefined ? undefined : this.facts[at];
  }

  has(roundId: string): boolean {
    return this.positions.has(roundId);
  }

  hasImage(imageId: string): boolean {
    return this.roundOfImageId.has(imageId);
  }

  /** The id of the round holding the image. */
  roundOfImage(imageId: string): string | undefined {
    return this.roundOfImageId.get(imageId);
  }

  /** The `seq` the next added round gets. */
  nextSeq(): number {
    const last = this.facts[this.facts.length - 1];
    return last ? last.seq + 1 : 0;
  }

  /** Rounds with an image within ±1 in their session (computed once per change). */
  roundsNearImages(): ReadonlySet<string> {
    this.nearImages ??= roundsNearImages(
      this.facts.map((round) => ({ id: round.id, sessionId: round.sessionId, hasImage: round.images.length > 0 })),
      1,
    );
    return this.nearImages;
  }

  /** History positions of a session's rounds, in order. */
  sessionPositions(sessionId: string): readonly number[] {
    if (!this.sessions) {
      this.sessions = new Map();
      this.facts.forEach((round, at) => this.addPosition(round.sessionId, at));
    }
    return this.sessions.get(sessionId) ?? [];
  }

  private addPosition(sessionId: string, at: number): void {
    const list = this.sessions!.get(sessionId);
    if (list) list.push(at);
    else this.sessions!.set(sessionId, [at]);
  }

  /**
   * Pictures with bytes that have no description by `describerId` yet (never described, or described
   * by an older describer), in history order. Pictures a vision LLM has described are left alone.
   */
  awaitingDescription(describerId: string): { roundId: string; imageId: string }[] {
    return this.facts.flatMap((round) =>
      round.images.filter((image) => image.hasBytes && image.describedBy !== describerId && image.describedBy !== VISION_LLM_DESCRIBER).map((image) => ({ roundId: round.id, imageId: image.id })),
    );
  }

  /** Adds rounds after the last (their `seq` follows it). */
  append(rounds: readonly RoundFacts[]): void {
    for (const round of rounds) {
      this.index(round, this.facts.length);
      if (this.sessions) this.addPosition(round.sessionId, this.facts.length);
      this.facts.push(round);
    }
    this.nearImages = undefined;
  }

  /** Adds rounds at the places their `seq` gives them (a sync's rounds from another device may sit between). */
  insert(rounds: readonly RoundFacts[]): void {
    const last = this.facts[this.facts.length - 1];
    if (!last || rounds.every((round) => round.seq > last.seq)) return this.append([...rounds].sort((a, b) => a.seq - b.seq));
    this.facts.push(...rounds);
    this.facts.sort((a, b) => a.seq - b.seq);
    this.positions = new Map();
    this.facts.forEach((round, position) => this.index(round, position));
    this.nearImages = undefined;
    this.sessions = undefined;
  }

  /** Puts a round's new facts in its place (its `seq` is kept). */
  replace(round: RoundFacts): void {
    const at = this.positions.get(round.id);
    if (at === undefined) throw new Error(`no round ${round.id} to replace`);
    for (const image of this.facts[at]!.images) this.roundOfImageId.delete(image.id);
    if (this.facts[at]!.sessionId !== round.sessionId) this.sessions = undefined;
    this.facts[at] = round;
    for (const image of round.images) this.roundOfImageId.set(image.id, round.id);
    this.nearImages = undefined;
  }

  remove(roundId: string): void {
    const at = this.positions.get(roundId);
    if (at === undefined) return;
    for (const image of this.facts[at]!.images) this.roundOfImageId.delete(image.id);
    this.facts.splice(at, 1);
    this.positions = new Map();
    this.facts.forEach((round, position) => this.positions.set(round.id, position));
    this.nearImages = undefined;
    this.sessions = undefined;
  }

  private index(round: RoundFacts, at: number): void {
    this.positions.set(round.id, at);
    for (const image of round.images) this.roundOfImageId.set(image.id, round.id);
  }
}
