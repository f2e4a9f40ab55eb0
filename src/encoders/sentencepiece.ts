/**
 * A SentencePiece unigram tokenizer: picks the segmentation of a text into vocabulary pieces whose
 * summed log-probabilities are highest (Viterbi over a trie of pieces).
 * It reads the `[piece, logProb][]` vocabulary that ships with Universal Sentence Encoder Lite.
 */

/** One vocabulary entry: the piece (with `▁` marking a word start) and its log-probability. */
export type VocabEntry = readonly [piece: string, score: number];

/** Turns text into vocabulary ids. */
export interface SentencePieceTokenizer {
  /** Size of the vocabulary. */
  readonly vocabSize: number;
  /**
   * Token ids of `text`, best segmentation first to last. Characters no piece covers become the
   * unknown id (0); a run of them becomes one unknown token, as SentencePiece does.
   * @example tokenizer.encode('Hello world') // → [ids of '▁Hello', '▁world']
   */
  encode(text: string): number[];
  /** The pieces of `text` (for debugging and tests). */
  pieces(text: string): string[];
}

/** Options of `createSentencePieceTokenizer`. */
export interface SentencePieceOptions {
  /**
   * Leading vocabulary entries that are control symbols (unknown, `<s>`, `</s>`, extra ids) and must
   * never match text.
   * @default 6
   */
  readonly reservedCount?: number;
  /** Id emitted for characters no piece covers. @default 0 */
  readonly unknownId?: number;
}

/** Marks the start of a word inside pieces (U+2581, "lower one eighth block"). */
export const WORD_START = '\u2581';

/** SentencePiece penalises an unknown character this much below the rarest piece. */
const UNKNOWN_PENALTY = 10;

interface TrieNode {
  readonly children: Map<string, TrieNode>;
  /** Vocabulary id of the piece ending here, or -1. */
  id: number;
}

/**
 * Builds a tokenizer from a unigram vocabulary.
 * @example
 * const tokenizer = createSentencePieceTokenizer(JSON.parse(vocabJson));
 * tokenizer.encode('A cat.') // → number[]
 */
export function createSentencePieceTokenizer(
  vocab: readonly VocabEntry[],
  options: SentencePieceOptions = {},
): SentencePieceTokenizer {
  const reservedCount = options.reservedCount === undefined ? 6 : options.reservedCount;
  const unknownId = options.unknownId === undefined ? 0 : options.unknownId;
  const scores = new Float64Array(vocab.length);
  const root: TrieNode = { children: new Map(), id: -1 };
  let minScore = 0;
  for (let id = reservedCount; id < vocab.length; id++) {
    const [piece, score] = vocab[id]!;
    scores[id] = score;
    if (score < minScore) minScore = score;
    insertPiece(root, piece, id);
  }
  const unknownScore = minScore - UNKNOWN_PENALTY;

  const segment = (text: string): number[] => {
    const chars = Array.from(normalizeForPieces(text));
    const n = chars.length;
    if (n === 0) return [];
    // best[j]: highest score of any segmentation of chars[0..j); from/idAt: how it was reached.
    const best = new Float64Array(n + 1).fill(-Infinity);
    const from = new Int32Array(n + 1);
    const idAt = new Int32Array(n + 1);
    best[0] = 0;
    for (let start = 0; start < n; start++) {
      const base = best[start]!;
      if (base === -Infinity) continue;
      let node: TrieNode | undefined = root;
      let coveredOneChar = false;
      for (let end = start; end < n; end++) {
        node = node.children.get(chars[end]!);
        if (node === undefined) break;
        if (node.id < 0) continue;
        if (end === start) coveredOneChar = true;
        const candidate = base + scores[node.id]!;
        if (candidate > best[end + 1]!) {
          best[end + 1] = candidate;
          from[end + 1] = start;
          idAt[end + 1] = node.id;
        }
      }
      if (!coveredOneChar) {
        // Keep the lattice connected through characters the vocabulary lacks.
        const candidate = base + unknownScore;
        if (candidate > best[start + 1]!) {
          best[start + 1] = candidate;
          from[start + 1] = start;
          idAt[start + 1] = unknownId;
        }
      }
    }
    const reversed: number[] = [];
    for (let end = n; end > 0; end = from[end]!) {
      const id = idAt[end]!;
      const previousWasUnknown = reversed.length > 0 && reversed[reversed.length - 1] === unknownId;
      if (!(id === unknownId && previousWasUnknown)) reversed.push(id);
    }
    return reversed.reverse();
  };

  return {
    vocabSize: vocab.length,
    encode: segment,
    pieces: (text) => segment(text).map((id) => vocab[id]![0]),
  };
}

/**
 * SentencePiece's input convention: NFKC, whitespace runs collapsed to one space, trimmed, then every
 * word prefixed with `▁`. Empty or blank text gives ''.
 */
export function normalizeForPieces(text: string): string {
  const collapsed = text.normalize('NFKC').replace(/\s+/gu, ' ').trim();
  return collapsed === '' ? '' : WORD_START + collapsed.replaceAll(' ', WORD_START);
}

function insertPiece(root: TrieNode, piece: string, id: number): void {
  let node = root;
  for (const char of piece) {
    let child = node.children.get(char);
    if (child === undefined) {
      child = { children: new Map(), id: -1 };
      node.children.set(char, child);
    }
    node = child;
  }
  // Duplicate pieces: the first (more probable) id wins, like a SentencePiece model file.
  if (node.id < 0) node.id = id;
}
