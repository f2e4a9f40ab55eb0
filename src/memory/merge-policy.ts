/**
 * When the background merge folds segments (LogMergePolicy's rule, adjacent segments only, so a merge
 * keeps insertion order): every write adds a small segment; eight
 * adjacent segments of one size level (powers of eight, in live rounds) become one of the next level,
 * so a memory of n rounds holds about 7 × log8(n) segments and each round is rewritten about log8(n)
 * times over its life. A segment a quarter dead is rewritten without its dead rounds, so a forgotten
 * round leaves every segment. No merge makes a segment larger than `MAX_SEGMENT_ROUNDS`.
 */

export const MERGE_FACTOR = 8;
/** Large enough that a million rounds make a few dozen segments, small enough that one stays a modest blob (~70 MB at 512-d). */
export const MAX_SEGMENT_ROUNDS = 65_536;
const DEAD_SHARE_TO_EXPUNGE = 0.25;
/** More segments than this (sizes that never line up into runs) merge the smallest window anyway. */
const MAX_SEGMENTS = 48;

/** What the policy reads of a segment. */
export interface SegmentSize {
  readonly id: string;
  readonly rounds: number;
  readonly dead: readonly unknown[];
}

const live = (segment: SegmentSize) => segment.rounds - segment.dead.length;
const level = (segment: SegmentSize) => Math.floor(Math.log(Math.max(1, live(segment))) / Math.log(MERGE_FACTOR));

/** The next merge to make: the ids of a run of adjacent segments (one alone to expunge its dead), or undefined. */
export function planMerge(segments: readonly SegmentSize[]): string[] | undefined {
  const mostlyDead = segments.find((segment) => segment.dead.length > 0 && segment.dead.length >= segment.rounds * DEAD_SHARE_TO_EXPUNGE);
  if (mostlyDead) return [mostlyDead.id];
  const fits = (run: readonly SegmentSize[]) => run.reduce((sum, segment) => sum + live(segment), 0) <= MAX_SEGMENT_ROUNDS;
  for (let start = 0; start + MERGE_FACTOR <= segments.length; ) {
    let end = start + 1;
    while (end < segments.length && level(segments[end]!) === level(segments[start]!)) end++;
    const run = segments.slice(start, start + MERGE_FACTOR);
    if (end - start >= MERGE_FACTOR && fits(run)) return run.map((segment) => segment.id);
    start = end;
  }
  if (segments.length <= MAX_SEGMENTS) return undefined;
  let best: SegmentSize[] | undefined;
  let bestSize = Infinity;
  for (let start = 0; start + MERGE_FACTOR <= segments.length; start++) {
    const run = segments.slice(start, start + MERGE_FACTOR);
    const size = run.reduce((sum, segment) => sum + live(segment), 0);
    if (size < bestSize && fits(run)) {
      best = run;
      bestSize = size;
    }
  }
  return best?.map((segment) => segment.id);
}
