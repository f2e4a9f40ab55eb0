import { describe, expect, it } from 'vitest';
import { normalizeRetrievalOptions } from '../options.js';
import type { StoredRound, UnitKind } from '../types.js';
import { runRetrieval, type EncodedQuery, type IndexView, type LaneHit } from './retrieve.js';
import { route } from './route.js';

// One session r0..r7; r1, r3 and r6 hold a picture. Each lane returns a fixed ranking, so the tests
// look at what routing, fusion and assembly make of it.
const history: StoredRound[] = Array.from({ length: 8 }, (_, i) => ({
  id: `r${i}`,
  seq: i,
  sessionId: 's',
  timestamp: i,
  user: { text: `turn ${i}`, images: [1, 3, 6].includes(i) ? [{ id: `img${i}`, roundId: `r${i}`, role: 'user', hasBytes: true }] : [] },
  assistant: { text: '', images: [] },
}));
const indexOf = new Map(history.map((round, index) => [round.id, index]));

function fakeView(rankings: { bm25?: string[]; dense?: string[]; image?: string[] }): IndexView {
  const hits = (roundIds: readonly string[] = [], suffix: string, limit: number, accept?: (roundId: string) => boolean): LaneHit[] =>
    roundIds
      .filter((roundId) => !accept || accept(roundId))
      .slice(0, limit)
      .map((roundId, rank) => ({ unitId: `${roundId}#${suffix}`, roundId, score: 1 - rank / 100 }));
  return {
    history,
    indexOf,
    unit: (unitId) => {
      const [roundId, suffix] = unitId.split('#') as [string, string];
      const kind: UnitKind = suffix === 'image' ? 'image' : 'text';
      return { roundId, kind, ...(kind === 'image' ? { imageId: `img${roundId.slice(1)}` } : { text: `turn ${roundId}` }) };
    },
    roundsNearImages: () => new Set(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']),
    bm25: (_text, limit, accept) => hits(rankings.bm25, 'user', limit, accept),
    dense: (_vector, limit, accept) => hits(rankings.dense, 'user', limit, accept),
    image: (_vector, limit, accept) => hits(rankings.image, 'image', limit, accept),
    textVector: () => undefined,
  };
}

const vector = new Float32Array([1, 0]);
const hitIds = (result: ReturnType<typeof runRetrieval>) => result.trace.filter((entry) => !entry.neighbour).map((entry) => entry.roundId);
const contextIds = (result: ReturnType<typeof runRetrieval>) => result.blocks.flatMap((block) => block.rounds.map((round) => round.id));

describe('runRetrieval: image+text→text', () => {
  const question = 'What breed is the dog in this photo?';
  // r5 talks about dog breeds in general: both text signals love it, the image lane never saw it.
  const view = fakeView({ bm25: ['r5', 'r3'], dense: ['r5', 'r1'], image: ['r1', 'r3', 'r6'] });
  const options = normalizeRetrievalOptions({ k: 2, neighbours: 0 });

  it("lets the question's words re-rank the image matches but not bring in a round the image lane did not match", () => {
    const query: EncodedQuery = { route: route(question, true), text: question, textVector: vector, imageVector: vector };
    const result = runRetrieval(view, query, options);
    expect(result.case).toBe('image+text→text');
    expect(hitIds(result)).toEqual(['r1', 'r3']);
  });

  it('lets words a vision LLM read off the picture search every round', () => {
    const query: EncodedQuery = { route: route(question, true), text: `${question} terrier`, textVector: vector, imageVector: vector, imageKeywords: ['terrier'] };
    expect(hitIds(runRetrieval(view, query, options))).toContain('r5');
  });
});

describe('runRetrieval: neighbours', () => {
  const question = 'Where did I park the car?';
  const query: EncodedQuery = { route: route(question, false), text: question, textVector: vector };
  // r4 is the hit; r5 is weak evidence (last in one pool); r3 is found by no signal.
  const view = fakeView({ bm25: ['r4', 'r5'], dense: ['r4'] });

  it('adds a ±1 neighbour only when some signal found it too', () => {
    const result = runRetrieval(view, query, normalizeRetrievalOptions({ k: 1 }));
    expect(contextIds(result)).toEqual(['r4', 'r5']);
    expect(result.trace.find((entry) => entry.roundId === 'r5')).toMatchObject({ neighbour: true, neighbourOf: ['r4'] });
  });

  it('adds every ±1 neighbour when evidence is not required', () => {
    const result = runRetrieval(view, query, normalizeRetrievalOptions({ k: 1, neighboursNeedEvidence: false }));
    expect(contextIds(result)).toEqual(['r3', 'r4', 'r5']);
  });
});
