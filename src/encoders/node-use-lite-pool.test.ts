import { afterAll, describe, expect, it } from 'vitest';
import { nodeTfjsWasmDir, nodeUseLiteModelPath, readFileAsFetch } from './node-assets.js';
import { createNodeUseLitePool } from './node-use-lite-pool.js';
import { createUseLiteTextEncoder } from './use-lite.js';
import { dot } from './vectors.js';

describe('USE-Lite worker pool (Node)', () => {
  const pool = createNodeUseLitePool({ workers: 2, chunkSize: 3 });
  afterAll(() => pool.dispose());

  it('returns the same vectors, in input order, as the in-thread encoder', async () => {
    const single = createUseLiteTextEncoder({ modelUrl: nodeUseLiteModelPath(), fetch: readFileAsFetch, wasmPaths: nodeTfjsWasmDir() });
    const texts = [
      'We drove to the coast and ate fish and chips by the harbour.',
      'ok',
      'My daughter started learning the violin this autumn.',
      'The meeting moved to Thursday at ten.',
      'Can you remind me what the plumber said about the boiler?',
      'Photos from the wedding',
      'The recipe needs two eggs, flour, butter and a pinch of salt.',
    ];
    const [fromPool, fromSingle] = [await pool.embed(texts), await single.embed(texts)];
    expect(pool.id).toBe(single.id);
    expect(fromPool).toHaveLength(texts.length);
    fromPool.forEach((vector, i) => expect(dot(vector, fromSingle[i]!)).toBeGreaterThan(0.9999));
    await single.dispose();
  });

  it('refuses calls after dispose with CLOSED', async () => {
    const other = createNodeUseLitePool({ workers: 1 });
    await other.dispose();
    await expect(other.embed(['x'])).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
