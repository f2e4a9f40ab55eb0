import { describe, expect, it } from 'vitest';
import { VmemError, type RetrievalResult, type StoredRound } from 'vmem';
import { contextFromRounds, contextFromUnits, percentile, scoreQuestion, summarize, summarizeByCategory } from './metrics.js';

function storedRound(id: string, userText: string, assistantText: string, imageIds: string[] = []): StoredRound {
  return {
    id,
    seq: 0,
    sessionId: 's',
    timestamp: 0,
    user: { text: userText, images: imageIds.map((imageId) => ({ id: imageId, roundId: id, role: 'user' as const, hasBytes: false })) },
    assistant: { text: assistantText, images: [] },
  };
}

const route = { queryModality: 'text', target: 'text', counting: false, aggregation: false, conflict: false } as const;

/** A round-level result holding two blocks: [r1, r2] and [r5]. */
function roundResult(): RetrievalResult {
  const r1 = storedRound('r1', 'abc', 'de'); // 5 chars
  const r2 = storedRound('r2', 'fghij', '', ['img-2']); // 5 chars
  const r5 = storedRound('r5', '1234567890', '12'); // 12 chars
  return {
    case: 'text-to-text',
    route,
    queryText: 'q',
    confidence: 1,
    relevant: true,
    blocks: [
      { sessionId: 's', rounds: [r1, r2] },
      { sessionId: 's', rounds: [r5] },
    ],
    images: [r2.user.images[0]!],
    trace: [],
  };
}

function unitResult(): RetrievalResult {
  return {
    ...roundResult(),
    units: [
      { unitId: 'u1', roundId: 'r7', kind: 'text', text: 'hello' },
      { unitId: 'u2', roundId: 'r7', kind: 'caption', text: 'a dog', imageId: 'img-7' },
      { unitId: 'u3', roundId: 'r8', kind: 'image', text: '', imageId: 'img-8' },
    ],
  };
}

describe('scoreQuestion', () => {
  it('gives allClue and anyClue when every gold round came back', () => {
    const score = scoreQuestion({ category: 'FR', goldRounds: ['r2', 'r5'] }, contextFromRounds(roundResult()));
    expect(score).toMatchObject({ allClue: true, anyClue: true });
  });

  it('gives neither when the gold round is not in the context', () => {
    const score = scoreQuestion({ category: 'FR', goldRounds: ['r3'] }, contextFromRounds(roundResult()));
    expect(score).toMatchObject({ allClue: false, anyClue: false });
  });

  it('gives anyClue but not allClue when only part of the gold came back', () => {
    const score = scoreQuestion({ category: 'MR', goldRounds: ['r1', 'r3'] }, contextFromRounds(roundResult()));
    expect(score).toMatchObject({ allClue: false, anyClue: true });
  });

  it('checks gold images only for questions that have them', () => {
    const context = contextFromRounds(roundResult());
    expect(scoreQuestion({ category: 'VS', goldRounds: ['r2'], goldImages: ['img-2'] }, context).goldImages).toBe(true);
    expect(scoreQuestion({ category: 'VS', goldRounds: ['r2'], goldImages: ['img-2', 'img-9'] }, context).goldImages).toBe(false);
    expect(scoreQuestion({ category: 'FR', goldRounds: ['r2'] }, context).goldImages).toBeUndefined();
  });
});

describe('budget counting', () => {
  it('counts a round-level context by its rounds and their user and assistant text', () => {
    const context = contextFromRounds(roundResult());
    expect([...context.roundIds]).toEqual(['r1', 'r2', 'r5']);
    expect(context.chars).toBe(5 + 5 + 12);
  });

  it('counts a unit-level context by distinct rounds of the units and the units’ own text', () => {
    const context = contextFromUnits(unitResult());
    expect([...context.roundIds]).toEqual(['r7', 'r8']);
    expect(context.chars).toBe('hello'.length + 'a dog'.length);
    expect(context.imageIds).toEqual(['img-7', 'img-8']);
  });

  it('refuses a unit-level result without units', () => {
    expect(() => contextFromUnits(roundResult())).toThrow(VmemError);
  });
});

describe('summaries', () => {
  const result = contextFromRounds(roundResult());
  const scores = [
    scoreQuestion({ category: 'FR', goldRounds: ['r1'] }, result),
    scoreQuestion({ category: 'FR', goldRounds: ['r9'] }, result),
    scoreQuestion({ category: 'VS', goldRounds: ['r2', 'r9'], goldImages: ['img-2'] }, contextFromUnits(unitResult())),
  ];

  it('averages recall over questions and budget per question', () => {
    const overall = summarize(scores);
    expect(overall.n).toBe(3);
    expect(overall.allClue).toBeCloseTo(1 / 3);
    expect(overall.anyClue).toBeCloseTo(1 / 3);
    expect(overall.meanRounds).toBeCloseTo((3 + 3 + 2) / 3);
    expect(overall.meanChars).toBeCloseTo((22 + 22 + 10) / 3);
    expect(overall.goldImages).toBe(0);
  });

  it('splits by category and leaves goldImages out where no question has gold images', () => {
    const byCategory = summarizeByCategory(scores);
    expect(Object.keys(byCategory)).toEqual(['FR', 'VS']);
    expect(byCategory['FR']).toMatchObject({ n: 2, allClue: 0.5 });
    expect(byCategory['FR']?.goldImages).toBeUndefined();
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const values = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile([], 50)).toBe(0);
  });
});
