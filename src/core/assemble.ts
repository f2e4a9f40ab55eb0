/** Where a round sits in the history; enough to find its neighbours. */
export interface HistoryPosition {
  readonly id: string;
  readonly sessionId: string;
}

export interface Selection {
  /** Hits then neighbours, as a set of round ids. */
  readonly roundIds: ReadonlySet<string>;
  /** For each neighbour (that is not itself a hit), the hits it surrounds. */
  readonly neighbourOf: ReadonlyMap<string, readonly string[]>;
}

/**
 * Adds up to `radius` rounds on each side of every hit, within the hit's session. Neighbours never
 * count against k: the hits are already cut to k before this runs.
 * @param history every round in time order.
 * @param admit when given, only neighbours it accepts are added.
 */
export function withNeighbours(
  hitIds: readonly string[],
  history: readonly HistoryPosition[],
  indexOf: ReadonlyMap<string, number>,
  radius: number,
  admit?: (roundId: string) => boolean,
): Selection {
  const roundIds = new Set(hitIds);
  const neighbourOf = new Map<string, string[]>();
  for (const hitId of hitIds) {
    const at = indexOf.get(hitId);
    if (at === undefined) continue;
    const session = history[at]!.sessionId;
    for (let offset = -radius; offset <= radius; offset++) {
      const neighbour = history[at + offset];
      if (offset === 0 || !neighbour || neighbour.sessionId !== session) continue;
      if (hitIds.includes(neighbour.id) || (admit && !admit(neighbour.id))) continue;
      roundIds.add(neighbour.id);
      const sources = neighbourOf.get(neighbour.id) ?? [];
      sources.push(hitId);
      neighbourOf.set(neighbour.id, sources);
    }
  }
  return { roundIds, neighbourOf };
}

/**
 * Groups selected rounds into blocks of consecutive rounds of one session, in time order.
 * Overlapping and touching windows merge into one block.
 */
export function toBlocks<T extends HistoryPosition>(
  selected: ReadonlySet<string>,
  history: readonly T[],
  indexOf: ReadonlyMap<string, number>,
): { sessionId: string; rounds: T[] }[] {
  const indices = [...selected].map((id) => indexOf.get(id)).filter((i): i is number => i !== undefined).sort((a, b) => a - b);
  const blocks: { sessionId: string; rounds: T[] }[] = [];
  let current: { sessionId: string; rounds: T[] } | undefined;
  let previousIndex = -2;
  for (const index of indices) {
    const round = history[index]!;
    const continues = current && previousIndex === index - 1 && current.sessionId === round.sessionId;
    if (!continues) {
      current = { sessionId: round.sessionId, rounds: [] };
      blocks.push(current);
    }
    current!.rounds.push(round);
    previousIndex = index;
  }
  return blocks;
}

/**
 * Rounds that hold an image, or sit within `radius` rounds of one in the same session: the
 * text→image case only looks at these.
 */
export function roundsNearImages(
  history: readonly (HistoryPosition & { readonly hasImage: boolean })[],
  radius: number,
): Set<string> {
  const near = new Set<string>();
  history.forEach((round, index) => {
    if (!round.hasImage) return;
    for (let offset = -radius; offset <= radius; offset++) {
      const other = history[index + offset];
      if (other && other.sessionId === round.sessionId) near.add(other.id);
    }
  });
  return near;
}
