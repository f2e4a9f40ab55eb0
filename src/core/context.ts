import type { HistoryPosition } from './assemble.js';
import { beyondRounding } from './fusion.js';

/** The rounds chosen for a result: hits (a signal found them) and context (chosen for what is near them). */
export interface ContextSelection {
  /** Hits, by their own evidence, best first. */
  readonly hits: readonly string[];
  /** Context rounds, best first, with the hits they were chosen for. */
  readonly context: ReadonlyMap<string, readonly string[]>;
}

/** What the scored rule needs: fused evidence per round, and how far and how much it spreads. */
export interface ScoredContext {
  /** Fused score of every round some signal found. */
  readonly evidence: ReadonlyMap<string, number>;
  readonly radius: number;
  /** Share of each neighbour's evidence (within `radius`, same session) a round gets. */
  readonly neighbourShare: number;
  /** Share of its session's best evidence a round gets. */
  readonly sessionShare: number;
  /** Rounds that may be chosen at all (a retrieval filter). */
  readonly admit?: (roundId: string) => boolean;
  /** The history positions of a session's rounds, in order (kept by the memory; found by a scan when absent). */
  readonly sessionPositions?: (sessionId: string) => readonly number[];
}

function positionsBySession(history: readonly HistoryPosition[]): (sessionId: string) => readonly number[] {
  const positions = new Map<string, number[]>();
  history.forEach((round, at) => {
    const list = positions.get(round.sessionId);
    if (list) list.push(at);
    else positions.set(round.sessionId, [at]);
  });
  return (sessionId) => positions.get(sessionId) ?? [];
}

/**
 * The scored rule: evidence clusters in time. A round is worth its own evidence, plus a share of its
 * neighbours' (the turn after a hit often answers it without repeating its words), plus a share of
 * its session's best (a conversation stays on a topic). The `k` best rounds come back; those no
 * signal found are context, tied to the hits near them (or their session's best hit). The shares
 * decide which rounds come back, not the order of the hits: hits are listed by their own evidence,
 * so the best match always leads.
 */
export function selectScored(history: readonly HistoryPosition[], indexOf: ReadonlyMap<string, number>, k: number, scored: ScoredContext): ContextSelection {
  const { evidence, radius, neighbourShare, sessionShare, admit, sessionPositions } = scored;
  // The evidence by history position, looked up once per round (neighbours read it by position).
  const evidenceAt = new Map<number, number>();
  const sessionBest = new Map<string, { roundId: string; score: number }>();
  for (const [roundId, score] of evidence) {
    const at = indexOf.get(roundId);
    if (at === undefined) continue;
    evidenceAt.set(at, score);
    const session = history[at]!.sessionId;
    const best = sessionBest.get(session);
    if (!best || score > best.score) sessionBest.set(session, { roundId, score });
  }
  // Only rounds near some evidence can score above zero; look at those alone.
  const candidates = new Set<number>();
  for (const at of evidenceAt.keys()) {
    for (let offset = -radius; offset <= radius; offset++) if (history[at + offset]?.sessionId === history[at]!.sessionId) candidates.add(at + offset);
  }
  if (sessionShare > 0) {
    // A round with no evidence near it scores its session's share alone, the same for the whole
    // session, and ties go to the earlier round: of those, only a session's first k admitted ones
    // can be chosen, so they are the only ones looked at (a session can span the whole history).
    const positions = sessionPositions ?? positionsBySession(history);
    for (const session of sessionBest.keys()) {
      let added = 0;
      for (const at of positions(session)) {
        if (added >= k) break;
        if (candidates.has(at) || (admit && !admit(history[at]!.id))) continue;
        candidates.add(at);
        added++;
      }
    }
  }
  const ranked: { at: number; score: number }[] = [];
  for (const at of candidates) {
    const round = history[at]!;
    if (admit && !admit(round.id)) continue;
    let score = evidenceAt.get(at) ?? 0;
    for (let offset = 1; offset <= radius; offset++) {
      // Before, then after: the sum's order stays fixed.
      if (history[at - offset]?.sessionId === round.sessionId) score += neighbourShare * (evidenceAt.get(at - offset) ?? 0);
      if (history[at + offset]?.sessionId === round.sessionId) score += neighbourShare * (evidenceAt.get(at + offset) ?? 0);
    }
    score += sessionShare * (sessionBest.get(round.sessionId)?.score ?? 0);
    if (score > 0) ranked.push({ at, score });
  }
  // Ties go to the earlier round, so the order is deterministic.
  ranked.sort((a, b) => b.score - a.score || a.at - b.at);
  const chosen = ranked.slice(0, k);
  // Equal evidence keeps the fusion's order (it breaks ties by the signals' scores), not history order.
  const fusedOrder = new Map([...evidence.keys()].map((roundId, at) => [roundId, at]));
  const hits = chosen
    .filter(({ at }) => evidence.has(history[at]!.id))
    .map(({ at }) => history[at]!.id)
    .sort((a, b) => beyondRounding(evidence.get(b)! - evidence.get(a)!) || fusedOrder.get(a)! - fusedOrder.get(b)!);
  const hitSet = new Set(hits);
  const context = new Map<string, readonly string[]>();
  for (const { at } of chosen) {
    const round = history[at]!;
    if (hitSet.has(round.id)) continue;
    const near: string[] = [];
    for (let offset = -radius; offset <= radius; offset++) {
      const other = history[at + offset];
      if (offset !== 0 && other && other.sessionId === round.sessionId && hitSet.has(other.id)) near.push(other.id);
    }
    const sessionHit = sessionBest.get(round.sessionId)?.roundId;
    context.set(round.id, near.length > 0 ? near : sessionHit && hitSet.has(sessionHit) ? [sessionHit] : []);
  }
  return { hits, context };
}
