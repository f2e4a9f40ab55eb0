import type { Lane, Signal } from '../types.js';

/** One candidate as a signal ranked it, best first. `key` is a round id or a unit id. */
export interface Candidate {
  readonly key: string;
  readonly unitId: string;
  readonly score: number;
}

/** A signal's ranked candidates and its weight in the fusion. */
export interface SignalRanking {
  readonly signal: Signal;
  readonly lane: Lane;
  readonly weight: number;
  /** Best first. */
  readonly candidates: readonly Candidate[];
}

export interface SignalVote {
  readonly signal: Signal;
  readonly lane: Lane;
  /** 1-based rank under this signal. */
  readonly rank: number;
  readonly score: number;
  readonly unitId: string;
}

export interface FusedCandidate {
  readonly key: string;
  readonly fusedScore: number;
  readonly votes: readonly SignalVote[];
}

/**
 * Collapses unit hits (best first) to one candidate per group: a round's score under a signal is its
 * best unit's score. Keeps the first `limit` groups.
 */
export function bestPerGroup<T extends { readonly unitId: string; readonly score: number }>(
  hits: readonly T[],
  groupOf: (hit: T) => string,
  limit: number,
): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const hit of hits) {
    if (out.length >= limit) break;
    const key = groupOf(hit);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ key, unitId: hit.unitId, score: hit.score });
  }
  return out;
}

/**
 * Reciprocal rank fusion: each signal adds weight / (κ + rank) to every candidate it ranked.
 * Ties (up to floating-point rounding) go to the candidate with more votes, then the better best
 * rank, then the key, so the order is deterministic. Signals with weight 0 do not vote.
 */
export function reciprocalRankFusion(rankings: readonly SignalRanking[], rrfK: number): FusedCandidate[] {
  const byKey = new Map<string, { fusedScore: number; votes: SignalVote[] }>();
  for (const ranking of rankings) {
    if (ranking.weight === 0) continue;
    ranking.candidates.forEach((candidate, index) => {
      const rank = index + 1;
      const entry = byKey.get(candidate.key) ?? { fusedScore: 0, votes: [] };
      entry.fusedScore += ranking.weight / (rrfK + rank);
      entry.votes.push({ signal: ranking.signal, lane: ranking.lane, rank, score: candidate.score, unitId: candidate.unitId });
      byKey.set(candidate.key, entry);
    });
  }
  const bestRank = (votes: readonly SignalVote[]) => Math.min(...votes.map((vote) => vote.rank));
  return [...byKey.entries()]
    .map(([key, entry]) => ({ key, fusedScore: entry.fusedScore, votes: entry.votes }))
    .sort(
      (a, b) =>
        beyondRounding(b.fusedScore - a.fusedScore) ||
        b.votes.length - a.votes.length ||
        bestRank(a.votes) - bestRank(b.votes) ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
}

/**
 * A difference of fused scores, or 0 when it is only floating-point rounding: 1/6 + 1/7 and 1/7 + 1/6
 * summed in another order are the same evidence, and must reach the tie-breaks.
 */
export function beyondRounding(difference: number): number {
  return Math.abs(difference) < 1e-12 ? 0 : difference;
}
