import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useLiteVocabSourcePath } from './onnx/node-sources.js';
import { createSentencePieceTokenizer, normalizeForPieces } from './sentencepiece.js';
import type { VocabEntry } from './sentencepiece.js';

const vocab = JSON.parse(readFileSync(useLiteVocabSourcePath(), 'utf8')) as VocabEntry[];
const tokenizer = createSentencePieceTokenizer(vocab);
const idOf = (piece: string): number => vocab.findIndex(([p]) => p === piece);

describe('sentencepiece tokenizer on the USE-Lite vocabulary', () => {
  it('splits common words into whole-word pieces', () => {
    expect(tokenizer.pieces('the cat sat on the floor.')).toEqual(['▁the', '▁cat', '▁sat', '▁on', '▁the', '▁floor', '.']);
    expect(tokenizer.encode('the cat')).toEqual([idOf('▁the'), idOf('▁cat')]);
  });

  it('keeps case (the vocabulary is cased) and breaks rare words into sub-pieces', () => {
    expect(tokenizer.pieces('Hello world')).toEqual(['▁H', 'ello', '▁world']);
    const pieces = tokenizer.pieces('photosynthesising');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe('▁photosynthesising');
  });

  it('collapses whitespace and applies NFKC', () => {
    expect(tokenizer.encode('  the \n\t cat  ')).toEqual(tokenizer.encode('the cat'));
    expect(tokenizer.encode('\uFB01sh')).toEqual(tokenizer.encode('fish')); // 'ﬁ' ligature
    expect(normalizeForPieces('a  b')).toBe('▁a▁b');
  });

  it('gives no tokens for blank text', () => {
    expect(tokenizer.encode('')).toEqual([]);
    expect(tokenizer.encode(' \n ')).toEqual([]);
  });

  it('maps a run of unknown characters to one unknown id (0)', () => {
    const ids = tokenizer.encode('cat 日本語 dog');
    expect(ids.filter((id) => id === 0)).toHaveLength(1);
    expect(ids[0]).toBe(idOf('▁cat'));
    expect(ids[ids.length - 1]).toBe(idOf('▁dog'));
  });
});

describe('sentencepiece segmentation', () => {
  it('picks the most probable segmentation, not the longest match', () => {
    const tiny: VocabEntry[] = [['<unk>', 0], ['▁ab', -10], ['▁a', -1], ['b', -1], ['▁', -2], ['a', -3]];
    const t = createSentencePieceTokenizer(tiny, { reservedCount: 1 });
    expect(t.pieces('ab')).toEqual(['▁a', 'b']);
  });

  it('never matches the reserved control symbols', () => {
    const tiny: VocabEntry[] = [['<unk>', 0], ['<s>', 0], ['▁<s>', 0], ['▁', -1], ['<', -1], ['s', -1], ['>', -1]];
    const t = createSentencePieceTokenizer(tiny, { reservedCount: 3 });
    expect(t.encode('<s>')).not.toContain(1);
    expect(t.encode('<s>')).not.toContain(2);
  });
});
