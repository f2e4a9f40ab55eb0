import { describe, expect, it } from 'vitest';
import { auroc } from './abstention.js';

describe('auroc', () => {
  it('is the chance a positive outscores a negative, ties counting half', () => {
    expect(auroc([0.9, 0.8], [0.1, 0.2])).toBe(1);
    expect(auroc([0.1], [0.9])).toBe(0);
    expect(auroc([0.5, 0.5], [0.5])).toBe(0.5);
    expect(auroc([0.9, 0.3], [0.5])).toBe(0.5);
    expect(auroc([], [0.5])).toBeNaN();
  });

  it('ends on NaN scores (a NaN equals nothing, not even another NaN)', () => {
    expect(Number.isFinite(auroc([Number.NaN, 0.9], [0.1, Number.NaN]))).toBe(true);
  });
});
