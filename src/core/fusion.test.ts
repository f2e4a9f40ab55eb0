import { describe, expect, it } from 'vitest';
import { bestPerGroup, reciprocalRankFusion, type SignalRanking } from './fusion.js';

const ranking = (signal: SignalRanking['signal'], keys: string[], weight = 1): SignalRanking => ({
  signal,
  lane: signal === 'image' ? 'image' : 'text',
  weight,
  candidates: keys.map((key, index) => ({ key, unitId: `${key}#u`, score: 1 - index / 10 })),
});

describe('reciprocalRankFusion', () => {
  it('adds 1/(κ + rank) per signal', () => {
    const fused = reciprocalRankFusion([ranking('bm25', ['a', 'b', 'c']), ranking('dense', ['b', 'a'])], 60);
    const score = Object.fromEntries(fused.map((item) => [item.key, item.fusedScore]));
    expect(score.a).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(score.b).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(score.c).toBeCloseTo(1 / 63, 12);
    expect(fused.at(-1)!.key).toBe('c');
  });

  it('lets one strong signal lose to two moderate ones', () => {
    const fused = reciprocalRankFusion([ranking('bm25', ['x', 'y']), ranking('dense', ['z', 'y']), ranking('image', ['w', 'y'])], 60);
    expect(fused[0]!.key).toBe('y');
    expect(fused[0]!.votes.map((vote) => vote.signal)).toEqual(['bm25', 'dense', 'image']);
    expect(fused[0]!.votes.every((vote) => vote.rank === 2)).toBe(true);
  });

  it('applies weights, and a weight of 0 removes the signal', () => {
    const weighted = reciprocalRankFusion([ranking('bm25', ['a']), ranking('dense', ['b'], 2)], 60);
    expect(weighted[0]!.key).toBe('b');
    expect(weighted[0]!.fusedScore).toBeCloseTo(2 / 61, 12);
    const off = reciprocalRankFusion([ranking('bm25', ['a']), ranking('dense', ['b'], 0)], 60);
    expect(off.map((item) => item.key)).toEqual(['a']);
  });

  it('uses κ as given', () => {
    const [only] = reciprocalRankFusion([ranking('bm25', ['a'])], 0);
    expect(only!.fusedScore).toBe(1);
  });

  it('breaks ties deterministically: more votes, then better rank, then key', () => {
    const fused = reciprocalRankFusion([ranking('bm25', ['b', 'a']), ranking('dense', ['a', 'b'])], 60);
    expect(fused.map((item) => item.key)).toEqual(['a', 'b']);
  });

  it('treats sums that differ only by rounding as a tie, so the tie-breaks decide', () => {
    // 1/6 + 1/7 and 1/7 + 1/6 are the same evidence; summed in another order they can differ in the last bit.
    const fused = reciprocalRankFusion([ranking('bm25', ['b', 'a']), ranking('dense', ['a', 'b']), ranking('image', ['a', 'b'], 0.1), ranking('caption-anchor', ['b', 'a'], 0.1)], 5);
    expect(Math.abs(fused[0]!.fusedScore - fused[1]!.fusedScore)).toBeLessThan(1e-12);
    expect(fused.map((item) => item.key)).toEqual(['a', 'b']);
  });
});

describe('bestPerGroup', () => {
  it("scores a round by its best unit and keeps the first `limit` rounds", () => {
    const hits = [
      { unitId: 'r1#user', roundId: 'r1', score: 0.9 },
      { unitId: 'r2#user', roundId: 'r2', score: 0.8 },
      { unitId: 'r1#assistant', roundId: 'r1', score: 0.7 },
      { unitId: 'r3#user', roundId: 'r3', score: 0.6 },
    ];
    expect(bestPerGroup(hits, (hit) => hit.roundId, 2)).toEqual([
      { key: 'r1', unitId: 'r1#user', score: 0.9 },
      { key: 'r2', unitId: 'r2#user', score: 0.8 },
    ]);
  });
});
