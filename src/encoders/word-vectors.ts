import { VmemError } from '../errors.js';
import type { WordVectors } from '../types.js';

/*
 * The word-vector file: a header line, then the words, then one int8 row per word.
 *   `vmem-word-vectors 1 <id> <dimension> <count> <wordBytes>\n`, `<wordBytes>` of UTF-8 words joined
 *   by `\n`, then `count × dimension` signed bytes.
 * int8 keeps 50 000 words of 100 dimensions at 5 MB; cosine similarity is scale-free, so a row needs
 * no scale of its own, only its norm, computed on load.
 */
const MAGIC = 'vmem-word-vectors';
const VERSION = 1;

/** A word-vector table read from its file. */
class WordVectorTable implements WordVectors {
  readonly size: number;
  private readonly rows: Map<string, number>;
  private readonly inverseNorms: Float32Array;

  constructor(
    readonly id: string,
    readonly dimension: number,
    words: readonly string[],
    private readonly values: Int8Array,
  ) {
    this.size = words.length;
    this.rows = new Map(words.map((word, row) => [word, row]));
    this.inverseNorms = new Float32Array(words.length);
    for (let row = 0; row < words.length; row++) {
      let sum = 0;
      for (let at = row * dimension; at < (row + 1) * dimension; at++) sum += values[at]! * values[at]!;
      this.inverseNorms[row] = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    }
  }

  rowOf(word: string): number | undefined {
    return this.rows.get(word);
  }

  similarity(a: number, b: number): number {
    const { values, dimension } = this;
    // Four int32 sums: products of int8 values stay far inside int32, so the sum is the same exact
    // integer as one running sum, about three times faster (the similar-words signal calls this for
    // every distinct word of a memory and every question word).
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let x = a * dimension;
    let y = b * dimension;
    const end = x + dimension;
    for (; x + 3 < end; x += 4, y += 4) {
      s0 = (s0 + values[x]! * values[y]!) | 0;
      s1 = (s1 + values[x + 1]! * values[y + 1]!) | 0;
      s2 = (s2 + values[x + 2]! * values[y + 2]!) | 0;
      s3 = (s3 + values[x + 3]! * values[y + 3]!) | 0;
    }
    let dot = s0 + s1 + s2 + s3;
    for (; x < end; x++, y++) dot += values[x]! * values[y]!;
    return dot * this.inverseNorms[a]! * this.inverseNorms[b]!;
  }
}

/**
 * Reads a word-vector file (as `scripts/convert-models.ts` writes it into `models/`, and the package ships in `dist/worker/models/`).
 * @throws VmemError `MODEL_LOAD_FAILED` when the bytes are not such a file.
 */
export function parseWordVectors(bytes: ArrayBuffer | Uint8Array): WordVectors {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const headerEnd = data.indexOf(10);
  const header = new TextDecoder().decode(data.subarray(0, Math.max(0, Math.min(headerEnd, 256)))).split(' ');
  const [magic, version, id, dimensionText, countText, wordBytesText] = header;
  const dimension = Number(dimensionText);
  const count = Number(countText);
  const wordBytes = Number(wordBytesText);
  const wordsStart = headerEnd + 1;
  const rowsStart = wordsStart + wordBytes;
  if (headerEnd < 0 || magic !== MAGIC || Number(version) !== VERSION || !id || ![dimension, count, wordBytes].every((n) => Number.isInteger(n) && n > 0) || data.length !== rowsStart + count * dimension) {
    throw new VmemError('MODEL_LOAD_FAILED', `These bytes are not a vmem word-vector file (version ${VERSION}); rebuild it with npm run convert-models.`);
  }
  const words = new TextDecoder().decode(data.subarray(wordsStart, rowsStart)).split('\n');
  if (words.length !== count) throw new VmemError('MODEL_LOAD_FAILED', `The word-vector file ${id} lists ${words.length} words but says ${count}.`);
  const values = new Int8Array(data.buffer, data.byteOffset + rowsStart, count * dimension);
  return new WordVectorTable(id, dimension, words, values);
}

/** Writes a word-vector file from words and their rows (any scale; each row is quantised to int8 on its own). */
export function encodeWordVectors(id: string, words: readonly string[], rows: readonly ArrayLike<number>[]): Uint8Array {
  const dimension = rows[0]?.length ?? 0;
  if (/\s/.test(id) || words.length === 0 || words.length !== rows.length || words.some((word) => word === '' || word.includes('\n'))) {
    throw new VmemError('INVALID_INPUT', 'encodeWordVectors needs an id without spaces and one non-empty word (no line breaks) per row.');
  }
  const wordBytes = new TextEncoder().encode(words.join('\n'));
  const header = new TextEncoder().encode(`${MAGIC} ${VERSION} ${id} ${dimension} ${words.length} ${wordBytes.length}\n`);
  const out = new Uint8Array(header.length + wordBytes.length + words.length * dimension);
  out.set(header, 0);
  out.set(wordBytes, header.length);
  const values = new Int8Array(out.buffer, header.length + wordBytes.length);
  rows.forEach((row, index) => {
    if (row.length !== dimension) throw new VmemError('INVALID_INPUT', `Row ${index} has ${row.length} values, not ${dimension}.`);
    let largest = 0;
    for (let at = 0; at < dimension; at++) largest = Math.max(largest, Math.abs(row[at]!));
    for (let at = 0; at < dimension; at++) values[index * dimension + at] = largest > 0 ? Math.round((row[at]! / largest) * 127) : 0;
  });
  return out;
}
