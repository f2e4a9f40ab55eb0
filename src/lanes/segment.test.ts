import { describe, expect, it } from 'vitest';
import type { StoredUnit } from '../types.js';
import { createWholeWordTokenizer } from './bm25.js';
import { buildSegment, decodeSegmentData, encodeSegmentData, mergeSegments, type SegmentRound } from './segment.js';
import { checksum } from './checksum.js';
import { SEGMENT_FORMAT, SegmentDamage, SegmentVersion, segmentId } from './segment-file.js';
import { decodeStrings, encodeStrings, findString } from './string-table.js';

const tokenizer = createWholeWordTokenizer();
const context = { tokenize: (text: string) => tokenizer.tokenize(text), textDimension: 3, imageDimension: 2 };

function round(id: string, text: string, caption?: string): SegmentRound {
  const units: StoredUnit[] = [{ id: `${id}#user`, roundId: id, lane: 'text', kind: 'text', role: 'user', text, vector: Float32Array.of(0.6, 0.8, 0) }];
  if (caption) {
    units.push({ id: `img-${id}#caption`, roundId: id, lane: 'text', kind: 'caption', role: 'user', text: caption, imageId: `img-${id}`, vector: Float32Array.of(0, 0, 1) });
    units.push({ id: `img-${id}#image`, roundId: id, lane: 'image', kind: 'image', role: 'user', imageId: `img-${id}`, vector: Float32Array.of(1, 0) });
  }
  return { id, units };
}

describe('string tables', () => {
  it('give back every string exactly, lone surrogates included, and find a string without decoding', () => {
    const strings = ['r1', 'état', '', 'emoji 😀', 'lone \ud800 surrogate', 'zz'];
    expect(decodeStrings(encodeStrings(strings))).toEqual(strings);
    const sorted = [...strings].sort();
    const table = encodeStrings(sorted);
    for (const text of strings) expect(findString(table, text)).toBe(sorted.indexOf(text));
    expect(findString(table, 'absent')).toBe(-1);
  });
});

describe('checksum', () => {
  it('gives the same sums with the SIMD kernel and in plain JS, and changes with any byte', () => {
    const bytes = Uint8Array.from({ length: (3 << 20) + 48 }, (_, i) => (i * 2_654_435_761) >>> 24);
    const sum = checksum(bytes);
    expect(checksum(bytes, false)).toEqual(sum);
    for (const at of [0, 17, 1 << 20, bytes.length - 1]) {
      const damaged = bytes.slice();
      damaged[at]! ^= 0x10;
      expect(checksum(damaged)).not.toEqual(sum);
    }
    // Two blocks swapped keep the first sums and change the second.
    const swapped = bytes.slice();
    swapped.set(bytes.subarray(16, 32), 0);
    swapped.set(bytes.subarray(0, 16), 16);
    expect(checksum(swapped)).not.toEqual(sum);
    expect(() => checksum(bytes.subarray(0, 20))).toThrow(RangeError);
  });
});

describe('index segments', () => {
  const rounds = [round('r1', 'the red bicycle', 'a bicycle by the door'), round('r2', 'lemon cake'), round('r3', 'the harbour at dusk', 'boats')];

  it('read back as written, and are named by the SHA-256 of their bytes', async () => {
    const data = buildSegment(rounds, context);
    const bytes = encodeSegmentData(data);
    const back = decodeSegmentData(bytes);
    expect(back.roundIds).toEqual(['r1', 'r2', 'r3']);
    expect(back.images).toEqual(['img-r1', 'img-r3']);
    expect([...back.rounds.owner]).toEqual([0, 1, 2]);
    expect([...back.captions.tag]).toEqual([0, 1]);
    expect([...back.text.owner]).toEqual([0, 0, 1, 2, 2]);
    expect([...back.image!.owner]).toEqual([0, 2]);
    expect(await segmentId(bytes)).toMatch(/^[0-9a-f]{64}$/);
    // Two writes of the same rounds are two segments (a round forgotten and added again must not take the old name).
    expect(await segmentId(encodeSegmentData(data))).not.toBe(await segmentId(bytes));
  });

  it('refuse damaged bytes and other formats with a typed error, never index them', () => {
    const bytes = encodeSegmentData(buildSegment(rounds, context));
    expect(() => decodeSegmentData(bytes.subarray(0, 10))).toThrow(SegmentDamage);
    expect(() => decodeSegmentData(bytes.subarray(0, bytes.length - 64))).toThrow(SegmentDamage);
    for (const at of [20, bytes.length >> 1, bytes.length - 40, bytes.length - 1]) {
      const damaged = bytes.slice();
      damaged[at]! ^= 0x01;
      expect(() => decodeSegmentData(damaged)).toThrow(/checksum/);
    }
    const newer = bytes.slice();
    new DataView(newer.buffer).setUint32(4, SEGMENT_FORMAT + 1, true);
    expect(() => decodeSegmentData(newer)).toThrow(SegmentVersion);
  });

  it('merge keeps the surviving rounds in order, with their postings, captions and vectors', () => {
    const first = buildSegment(rounds, context);
    const second = buildSegment([round('r4', 'red apples', 'an apple')], context);
    const merged = decodeSegmentData(encodeSegmentData(mergeSegments([{ data: first, keep: (local) => local !== 0 }, { data: second, keep: () => true }], context)));
    expect(merged.roundIds).toEqual(['r2', 'r3', 'r4']);
    expect(merged.images).toEqual(['img-r3', 'img-r4']);
    expect([...merged.captions.owner]).toEqual([1, 2]);
    expect([...merged.text.owner]).toEqual([0, 1, 1, 2, 2]);
    const red = findString(merged.rounds.terms, tokenizer.tokenize('red')[0]!);
    expect([...merged.rounds.postings.subarray(merged.rounds.starts[red], merged.rounds.starts[red + 1])]).toEqual([2]);
  });
});
