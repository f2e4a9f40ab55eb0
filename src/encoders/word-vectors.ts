import { VmemError } from '../errors.js';
import type { WordVectors } from '../types.js';

/*
 * The word-vector file: a header line, then the words, then one row of levels per word.
 *   `vmem-word-vectors 2 <id> <dimension> <count> <wordBytes> <bits>\n`, `<wordBytes>` of UTF-8
 *   words joined by `\n`, then `count × dimension` values of `<bits>` bits each, packed
 *   little-endian: value q in [-L, L], L = 2^(bits-1) - 1, stored as q + L.
 * Cosine similarity is scale-free, so a row needs no scale of its own, only its norm, computed on
 * load. The levels are held as int8 once read, whatever their width in the file. Version 1 files
 * (no `<bits>` field, one signed byte a value) are still read.
 */
const MAGIC = 'vmem-word-vectors';
const VERSION = 2;

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
  const [magic, version, id, dimensionText, countText, wordBytesText, bitsText] = header;
  const dimension = Number(dimensionText);
  const count = Number(countText);
  const wordBytes = Number(wordBytesText);
  // Version 1 had no width field: one signed byte a value.
  const signedBytes = Number(version) === 1;
  const bits = signedBytes ? 8 : Number(bitsText);
  const wordsStart = headerEnd + 1;
  const rowsStart = wordsStart + wordBytes;
  if (
    headerEnd < 0 ||
    magic !== MAGIC ||
    (!signedBytes && Number(version) !== VERSION) ||
    !id ||
    ![dimension, count, wordBytes].every((n) => Number.isInteger(n) && n > 0) ||
    !isLevelWidth(bits) ||
    data.length !== rowsStart + packedBytes(count * dimension, bits)
  ) {
    throw new VmemError('MODEL_LOAD_FAILED', `These bytes are not a vmem word-vector file (version ${VERSION}); rebuild it with npm run convert-models.`);
  }
  const words = new TextDecoder().decode(data.subarray(wordsStart, rowsStart)).split('\n');
  if (words.length !== count) throw new VmemError('MODEL_LOAD_FAILED', `The word-vector file ${id} lists ${words.length} words but says ${count}.`);
  const levels = signedBytes ? new Int8Array(data.buffer, data.byteOffset + rowsStart, count * dimension) : unpackLevels(data.subarray(rowsStart), count * dimension, bits);
  return new WordVectorTable(id, dimension, words, levels);
}

/** Level widths a file may use: 8 bits (int8) down to 4. */
export type LevelWidth = 4 | 5 | 6 | 7 | 8;

/**
 * Writes a word-vector file from words and their rows (any scale; each row is quantised on its own,
 * its largest magnitude at the top level of `bits`).
 */
export function encodeWordVectors(id: string, words: readonly string[], rows: readonly ArrayLike<number>[], bits: LevelWidth = 8): Uint8Array {
  const dimension = rows[0]?.length ?? 0;
  if (/\s/.test(id) || words.length === 0 || words.length !== rows.length || words.some((word) => word === '' || word.includes('\n'))) {
    throw new VmemError('INVALID_INPUT', 'encodeWordVectors needs an id without spaces and one non-empty word (no line breaks) per row.');
  }
  if (!isLevelWidth(bits)) throw new VmemError('INVALID_INPUT', `encodeWordVectors stores 4 to 8 bits a value, not ${String(bits)}.`);
  const top = topLevel(bits);
  const levels = new Int8Array(words.length * dimension);
  rows.forEach((row, index) => {
    if (row.length !== dimension) throw new VmemError('INVALID_INPUT', `Row ${index} has ${row.length} values, not ${dimension}.`);
    let largest = 0;
    for (let at = 0; at < dimension; at++) largest = Math.max(largest, Math.abs(row[at]!));
    for (let at = 0; at < dimension; at++) levels[index * dimension + at] = largest > 0 ? Math.round((row[at]! / largest) * top) : 0;
  });
  const wordBytes = new TextEncoder().encode(words.join('\n'));
  const header = new TextEncoder().encode(`${MAGIC} ${VERSION} ${id} ${dimension} ${words.length} ${wordBytes.length} ${bits}\n`);
  const packed = packLevels(levels, bits);
  const out = new Uint8Array(header.length + wordBytes.length + packed.length);
  out.set(header, 0);
  out.set(wordBytes, header.length);
  out.set(packed, header.length + wordBytes.length);
  return out;
}

function isLevelWidth(bits: number): bits is LevelWidth {
  return Number.isInteger(bits) && bits >= 4 && bits <= 8;
}

function topLevel(bits: LevelWidth): number {
  return 2 ** (bits - 1) - 1;
}

function packedBytes(values: number, bits: LevelWidth): number {
  return Math.ceil((values * bits) / 8);
}

function packLevels(levels: Int8Array, bits: LevelWidth): Uint8Array {
  const top = topLevel(bits);
  const out = new Uint8Array(packedBytes(levels.length, bits));
  let at = 0;
  let buffer = 0;
  let held = 0;
  for (const level of levels) {
    buffer |= (level + top) << held;
    held += bits;
    while (held >= 8) {
      out[at++] = buffer & 0xff;
      buffer >>>= 8;
      held -= 8;
    }
  }
  if (held > 0) out[at] = buffer & 0xff;
  return out;
}

function unpackLevels(packed: Uint8Array, count: number, bits: LevelWidth): Int8Array {
  const top = topLevel(bits);
  const mask = (1 << bits) - 1;
  const levels = new Int8Array(count);
  let at = 0;
  let buffer = 0;
  let held = 0;
  for (let index = 0; index < count; index++) {
    while (held < bits) {
      buffer |= packed[at++]! << held;
      held += 8;
    }
    levels[index] = (buffer & mask) - top;
    buffer >>>= bits;
    held -= bits;
  }
  return levels;
}
