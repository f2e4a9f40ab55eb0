import { describe, expect, it } from 'vitest';
import { findMatchedK } from './matched-budget.js';

describe('findMatchedK', () => {
  it('finds the k whose mean rounds is closest to the target, evaluating each k once', async () => {
    const asked: number[] = [];
    // Unit-level systems return fewer rounds than units: here about 0.6 rounds per unit.
    const meanRoundsAt = async (k: number) => {
      asked.push(k);
      return Math.floor(k * 0.6);
    };
    const found = await findMatchedK(meanRoundsAt, 25.4, 1000);
    expect(found).toEqual({ k: 43, meanRounds: 25, reached: true });
    expect(new Set(asked).size).toBe(asked.length);
  });

  it('gives the baseline the larger k on a tie', async () => {
    const found = await findMatchedK(async (k) => k, 12.5, 100);
    expect(found.k).toBe(13);
  });

  it('reports a budget that cannot be reached instead of looping', async () => {
    const found = await findMatchedK(async (k) => Math.min(k, 8), 20, 1000);
    expect(found).toMatchObject({ meanRounds: 8, reached: false });
  });
});
