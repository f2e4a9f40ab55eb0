import type { WordVectors } from '../types.js';
import { STOP_WORDS } from './stop-words.js';
import { TopK } from './top-k.js';

// Chat fillers: in nearly every turn, so a question word that merely resembles one learns nothing.
const FILLERS = 'oh hey hi yeah wow thanks thank like get got go going gonna lot really s t don'.split(' ');
const IGNORED = new Set([...STOP_WORDS, ...FILLERS]);

/**
 * Below this cosine two words are not taken as related: GloVe puts most unrelated pairs between 0 and
 * 0.4, and counting those would let every long round collect a little of every question word.
 */
const SIMILAR_WORD_MIN = 0.4;

/**
 * The distinct rows of a text's words, function words left out. A word the table lacks gets a row
 * past the table's, from a hash of its letters: it has no vector, but it still matches itself, as
 * in BM25 (a small table lacks exactly the rare words, names and things, that say most).
 */
export function wordRowsOf(text: string, vectors: WordVectors): number[] {
  const rows = new Set<number>();
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (IGNORED.has(word)) continue;
    rows.add(vectors.rowOf(word) ?? unknownWordRow(word, vectors.size));
  }
  return [...rows];
}

/**
 * What a segment's word rows are made of, as segments record it: the table's id, and the rows of
 * words it lacks. Segments written before those words had rows record the bare id, so a memory
 * reads their rounds' words once again.
 */
export function wordRowsId(vectors: WordVectors): string {
  return `${vectors.id}+unknown-words`;
}

/** A row past the table's `size` rows for a word the table lacks: FNV-1a of its letters. */
function unknownWordRow(word: string, size: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193) >>> 0;
  return size + (hash % (0xffffffff - size));
}

/**
 * A batch of rounds' words as a segment stores them: the local rounds it indexes (those with text,
 * ascending), and per table row (sorted) the local rounds that hold the word (ascending).
 */
export interface WordsSection {
  readonly members: Uint32Array;
  readonly rows: Uint32Array;
  readonly starts: Uint32Array;
  readonly holders: Uint32Array;
}

/** The section of the given rounds (local number, ascending) and their words' rows. */
export function buildWordsSection(rounds: readonly { readonly local: number; readonly rows: readonly number[] }[]): WordsSection {
  const holdersOf = new Map<number, number[]>();
  for (const { local, rows } of rounds) {
    for (const row of rows) {
      const list = holdersOf.get(row);
      if (list) list.push(local);
      else holdersOf.set(row, [local]);
    }
  }
  return pack(Uint32Array.from(rounds, (round) => round.local), holdersOf);
}

/** A section to fold into a merge: each local round's new number, or -1 to drop it. */
export interface WordsMergeInput {
  readonly section: WordsSection;
  readonly renumber: Int32Array;
}

/** One section with the rounds of `inputs` that survive, renumbered (inputs in order, so members stay ascending). */
export function mergeWordsSections(inputs: readonly WordsMergeInput[]): WordsSection {
  const holdersOf = new Map<number, number[]>();
  const members: number[] = [];
  for (const { section, renumber } of inputs) {
    for (const local of section.members) if (renumber[local]! >= 0) members.push(renumber[local]!);
    for (let r = 0; r < section.rows.length; r++) {
      const row = section.rows[r]!;
      for (let p = section.starts[r]!; p < section.starts[r + 1]!; p++) {
        const local = renumber[section.holders[p]!]!;
        if (local < 0) continue;
        const list = holdersOf.get(row);
        if (list) list.push(local);
        else holdersOf.set(row, [local]);
      }
    }
  }
  return pack(Uint32Array.from(members), holdersOf);
}

function pack(members: Uint32Array, holdersOf: Map<number, number[]>): WordsSection {
  const rows = Uint32Array.from([...holdersOf.keys()].sort((a, b) => a - b));
  const starts = new Uint32Array(rows.length + 1);
  let total = 0;
  rows.forEach((row, r) => {
    starts[r] = total;
    total += holdersOf.get(row)!.length;
  });
  starts[rows.length] = total;
  const holders = new Uint32Array(total);
  rows.forEach((row, r) => {
    const list = holdersOf.get(row)!;
    list.sort((a, b) => a - b);
    holders.set(list, starts[r]!);
  });
  return { members, rows, starts, holders };
}

/** A section in the index: each local round's slot. */
export interface WordsPart {
  readonly section: WordsSection;
  readonly roundSlot: Int32Array;
}

/**
 * The `similar-words` signal over whole rounds: every question word is matched to the round's most
 * similar word by the word vectors, and a round scores the sum of those similarities, each weighted
 * by how rare the question word is in this memory (its IDF), over the sum of those weights: the share
 * of the question's words, by rarity, that the round matches, in [0, 1]. A word the round holds
 * itself counts 1, so this is BM25's matching made soft, not a second sentence vector.
 *
 * The rounds' words are stored as table rows (segments keep them), so opening reads them and looks
 * at no text. A search compares the question's words with the memory's distinct words once each,
 * then walks the holders of the related ones only.
 */
export class SimilarWordsIndex {
  private parts: WordsPart[] = [];
  private best = new Float32Array(0);
  private similarities = new Float32Array(0);

  /** @param slotOrder orders equal scores by their slots (the lanes give the rounds' history order). */
  constructor(
    private readonly vectors: WordVectors,
    private readonly isDead: (slot: number) => boolean,
    private readonly slotOrder?: (slot: number) => number,
  ) {}

  get sections(): readonly WordsPart[] {
    return this.parts;
  }

  setParts(parts: readonly WordsPart[]): void {
    this.parts = [...parts];
  }

  addPart(part: WordsPart): void {
    this.parts.push(part);
  }

  /** The best `limit` slots for `text`, best first (ties by slot); rounds with no related word at all are left out. */
  search(text: string, limit: number, slots: number, accept?: (slot: number) => boolean): { slot: number; score: number }[] {
    const query = wordRowsOf(text, this.vectors);
    if (query.length === 0 || limit <= 0) return [];
    let rounds = 0;
    const holding = new Float64Array(query.length);
    for (const { section, roundSlot } of this.parts) {
      for (const local of section.members) if (!this.isDead(roundSlot[local]!)) rounds++;
      query.forEach((row, word) => {
        const r = findRow(section.rows, row);
        if (r < 0) return;
        for (let p = section.starts[r]!; p < section.starts[r + 1]!; p++) if (!this.isDead(roundSlot[section.holders[p]!]!)) holding[word]!++;
      });
    }
    const words = query.length;
    const weights = query.map((_, word) => Math.log((rounds + 1) / (holding[word]! + 0.5)));
    // similarities[row × words + word], NaN until computed: each memory word is compared once per question word.
    const tableRows = this.vectors.size;
    if (this.similarities.length < tableRows * words) this.similarities = new Float32Array(tableRows * words);
    const similarities = this.similarities;
    similarities.fill(Number.NaN, 0, tableRows * words);
    // best[slot × words + word]: the round's most similar word to each question word.
    if (this.best.length < slots * words) this.best = new Float32Array(slots * words);
    const best = this.best;
    const touched: number[] = [];
    const isTouched = new Uint8Array(slots);
    for (const { section, roundSlot } of this.parts) {
      const hold = (r: number, word: number, similarity: number) => {
        for (let p = section.starts[r]!; p < section.starts[r + 1]!; p++) {
          const slot = roundSlot[section.holders[p]!]!;
          const at = slot * words + word;
          if (isTouched[slot] === 0) {
            if (this.isDead(slot)) continue;
            isTouched[slot] = 1;
            touched.push(slot);
            best.fill(0, slot * words, slot * words + words);
          }
          if (similarity > best[at]!) best[at] = similarity;
        }
      };
      // Rows are sorted, so the table's words come first; a word past the table matches only itself.
      for (let r = 0; r < section.rows.length && section.rows[r]! < tableRows; r++) {
        const row = section.rows[r]!;
        for (let word = 0; word < words; word++) {
          if (query[word]! >= tableRows) continue;
          let similarity = similarities[row * words + word]!;
          if (Number.isNaN(similarity)) {
            similarity = query[word] === row ? 1 : this.vectors.similarity(query[word]!, row);
            similarities[row * words + word] = similarity;
          }
          if (similarity >= SIMILAR_WORD_MIN) hold(r, word, similarity);
        }
      }
      query.forEach((row, word) => {
        if (row < tableRows) return;
        const r = findRow(section.rows, row);
        if (r >= 0) hold(r, word, 1);
      });
    }
    // Scores are the share of the question's words (by rarity) a round matches, in [0, 1].
    const total = weights.reduce((sum, weight) => sum + weight, 0) || 1;
    const top = new TopK(limit, this.slotOrder);
    for (const slot of touched) {
      if (accept && !accept(slot)) continue;
      let score = 0;
      for (let word = 0; word < words; word++) score += weights[word]! * best[slot * words + word]!;
      top.offer(slot, score / total);
    }
    return top.sorted().map(({ key, score }) => ({ slot: key, score }));
  }
}

function findRow(rows: Uint32Array, row: number): number {
  let low = 0;
  let high = rows.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = rows[middle]!;
    if (value === row) return middle;
    if (value < row) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
