import { describe, expect, it } from 'vitest';
import { roundsNearImages, toBlocks, withNeighbours } from './assemble.js';

// Two sessions: s1 has r0..r5, s2 has r6..r8.
const history = Array.from({ length: 9 }, (_, i) => ({ id: `r${i}`, sessionId: i < 6 ? 's1' : 's2' }));
const indexOf = new Map(history.map((round, index) => [round.id, index]));
const ids = (blocks: { rounds: { id: string }[] }[]) => blocks.map((block) => block.rounds.map((round) => round.id));

describe('withNeighbours + toBlocks', () => {
  it('adds ±1 around each hit and merges overlapping windows into one time-ordered block', () => {
    const selection = withNeighbours(['r3', 'r1'], history, indexOf, 1);
    expect(ids(toBlocks(selection.roundIds, history, indexOf))).toEqual([['r0', 'r1', 'r2', 'r3', 'r4']]);
    expect(selection.neighbourOf.get('r2')).toEqual(['r3', 'r1']);
    expect(selection.neighbourOf.has('r1')).toBe(false);
  });

  it('stops at the ends of the history', () => {
    const selection = withNeighbours(['r0', 'r8'], history, indexOf, 1);
    expect(ids(toBlocks(selection.roundIds, history, indexOf))).toEqual([['r0', 'r1'], ['r7', 'r8']]);
  });

  it('never crosses a session boundary', () => {
    const selection = withNeighbours(['r5'], history, indexOf, 1);
    expect(ids(toBlocks(selection.roundIds, history, indexOf))).toEqual([['r4', 'r5']]);
  });

  it('keeps separate blocks for windows that neither overlap nor touch', () => {
    const selection = withNeighbours(['r0', 'r4'], history, indexOf, 1);
    expect(ids(toBlocks(selection.roundIds, history, indexOf))).toEqual([['r0', 'r1'], ['r3', 'r4', 'r5']]);
  });

  it('merges windows that touch', () => {
    const selection = withNeighbours(['r0', 'r3'], history, indexOf, 1);
    expect(ids(toBlocks(selection.roundIds, history, indexOf))).toEqual([['r0', 'r1', 'r2', 'r3', 'r4']]);
  });

  it('adds only the neighbours `admit` accepts', () => {
    const selection = withNeighbours(['r2'], history, indexOf, 1, (roundId) => roundId === 'r3');
    expect([...selection.roundIds]).toEqual(['r2', 'r3']);
    expect(selection.neighbourOf.has('r1')).toBe(false);
  });

  it('adds nothing with radius 0', () => {
    const selection = withNeighbours(['r2'], history, indexOf, 0);
    expect([...selection.roundIds]).toEqual(['r2']);
  });
});

describe('roundsNearImages', () => {
  it('keeps rounds with an image in themselves or within ±1 of the same session', () => {
    const withImages = history.map((round) => ({ ...round, hasImage: round.id === 'r2' || round.id === 'r6' }));
    expect([...roundsNearImages(withImages, 1)].sort()).toEqual(['r1', 'r2', 'r3', 'r6', 'r7']);
  });
});
