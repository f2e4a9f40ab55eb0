/** The k picked for a matched-budget run and the mean rounds it gave. */
export interface MatchedK {
  readonly k: number;
  readonly meanRounds: number;
  /** False when even the largest k tried returned fewer rounds than the target. */
  readonly reached: boolean;
}

/**
 * Finds the integer k whose mean returned rounds is closest to `target`, given `meanRoundsAt(k)`,
 * which grows with k and never exceeds it (a system cut at k hits returns at most k rounds).
 * It starts at ⌈target⌉, doubles until the target is reached (or the rounds stop growing, or
 * `maxK`), then bisects. On a tie it takes the larger k: the baseline gets the benefit of the doubt.
 * Each k is evaluated at most once.
 */
export async function findMatchedK(meanRoundsAt: (k: number) => Promise<number>, target: number, maxK: number): Promise<MatchedK> {
  const seen = new Map<number, number>();
  const at = async (k: number): Promise<number> => {
    let value = seen.get(k);
    if (value === undefined) {
      value = await meanRoundsAt(k);
      seen.set(k, value);
    }
    return value;
  };
  let low = 0; // Largest k known to fall short (0 returns nothing).
  let high = Math.min(maxK, Math.max(1, Math.ceil(target)));
  while ((await at(high)) < target) {
    const previous = low === 0 ? -1 : await at(low);
    low = high;
    if (high >= maxK || (await at(high)) === previous) return { k: high, meanRounds: await at(high), reached: false };
    high = Math.min(maxK, high * 2);
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if ((await at(middle)) < target) low = middle;
    else high = middle;
  }
  const above = await at(high);
  if (low === 0) return { k: high, meanRounds: above, reached: true };
  const below = await at(low);
  return target - below < above - target ? { k: low, meanRounds: below, reached: true } : { k: high, meanRounds: above, reached: true };
}
