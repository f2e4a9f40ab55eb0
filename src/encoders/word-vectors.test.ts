import { describe, expect, it } from 'vitest';
import { parseWordVectors } from 'vmem';
import { encodeWordVectors } from 'vmem/internal';
import { TOPIC_WORDS } from '../testing/word-vectors.js';

const cosine = (a: readonly number[], b: readonly number[]) => {
  const dot = a.reduce((sum, value, at) => sum + value * b[at]!, 0);
  return dot / Math.hypot(...a) / Math.hypot(...b);
};

describe('word-vector file', () => {
  const words = Object.keys(TOPIC_WORDS);
  const bytes = encodeWordVectors('topics', words, words.map((word) => TOPIC_WORDS[word]!));
  const table = parseWordVectors(bytes);

  it('reads back every word, and similarities within int8 rounding of the original cosines', () => {
    expect(table).toMatchObject({ id: 'topics', dimension: 5, size: words.length });
    for (const a of words) {
      for (const b of words) {
        expect(Math.abs(table.similarity(table.rowOf(a)!, table.rowOf(b)!) - cosine(TOPIC_WORDS[a]!, TOPIC_WORDS[b]!))).toBeLessThan(0.02);
      }
    }
    expect(table.rowOf('unheard')).toBeUndefined();
  });

  it('gives every similarity exactly as the plain integer dot product over the two norms, at every level width', () => {
    // Rows of integers whose largest magnitude is the top level are stored as they are, so the expected value can be computed here.
    let seed = 7;
    for (const bits of [4, 5, 6, 7, 8] as const) {
      const top = 2 ** (bits - 1) - 1;
      const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % (2 * top + 1)) - top;
      for (const dimension of [1, 5, 7, 100, 103]) {
        const rows = Array.from({ length: 12 }, () => Array.from({ length: dimension }, (_, at) => (at === 0 ? top : next())));
        const words = rows.map((_, at) => `w${at}`);
        const bytes = encodeWordVectors('ints', words, rows, bits);
        const header = new TextEncoder().encode(`vmem-word-vectors 2 ints ${dimension} 12 ${words.join('\n').length} ${bits}\n`).length;
        expect(bytes.length - header - words.join('\n').length).toBe(Math.ceil((12 * dimension * bits) / 8));
        const vectors = parseWordVectors(bytes);
        const inverseNorm = (row: readonly number[]) => Math.fround(1 / Math.sqrt(row.reduce((sum, value) => sum + value * value, 0)));
        for (let a = 0; a < rows.length; a++) {
          for (let b = 0; b < rows.length; b++) {
            const dot = rows[a]!.reduce((sum, value, at) => sum + value * rows[b]![at]!, 0);
            expect(vectors.similarity(a, b)).toBe(dot * inverseNorm(rows[a]!) * inverseNorm(rows[b]!));
          }
        }
      }
    }
  });

  it('still reads a version 1 file (one signed byte a value, no width field)', () => {
    const rows = [
      [127, -5, 0],
      [-127, 64, -1],
    ];
    const words = ['up', 'down'];
    const header = new TextEncoder().encode(`vmem-word-vectors 1 old 3 2 ${words.join('\n').length}\n`);
    const file = new Uint8Array([...header, ...new TextEncoder().encode(words.join('\n')), ...new Uint8Array(Int8Array.from(rows.flat()).buffer)]);
    const vectors = parseWordVectors(file);
    expect(vectors).toMatchObject({ id: 'old', dimension: 3, size: 2 });
    const norm = (row: readonly number[]) => Math.fround(1 / Math.sqrt(row.reduce((sum, value) => sum + value * value, 0)));
    const dot = rows[0]!.reduce((sum, value, at) => sum + value * rows[1]![at]!, 0);
    expect(vectors.similarity(vectors.rowOf('up')!, vectors.rowOf('down')!)).toBe(dot * norm(rows[0]!) * norm(rows[1]!));
  });

  it('refuses bytes that are not such a file, or are cut short', () => {
    expect(() => parseWordVectors(new TextEncoder().encode('{"words": []}'))).toThrow(expect.objectContaining({ code: 'MODEL_LOAD_FAILED' }));
    expect(() => parseWordVectors(bytes.subarray(0, bytes.length - 1))).toThrow(expect.objectContaining({ code: 'MODEL_LOAD_FAILED' }));
  });

  it('refuses rows of different lengths, an id with spaces, or a word with a line break', () => {
    expect(() => encodeWordVectors('topics', ['a', 'b'], [[1, 0], [1]])).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => encodeWordVectors('two words', ['a'], [[1]])).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => encodeWordVectors('topics', ['a\nb'], [[1]])).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => encodeWordVectors('topics', ['a'], [[1]], 3 as 4)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});
