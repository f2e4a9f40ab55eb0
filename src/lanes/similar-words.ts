import type { AcceptRound, LaneHit } from '../core/run.js';
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

/** The distinct table rows of a text's words, function words and words the table lacks left out. */
function rowsOf(text: string, vectors: WordVectors): number[] {
  const rows = new Set<number>();
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (IGNORED.has(word)) continue;
    const row = vectors.rowOf(word);
    if (row !== undefined) rows.add(row);
  }
  return [...rows];
}

/**
 * The `similar-words` signal over whole rounds: every question word is matched to the round's most
 * similar word by the word vectors, and a round scores the sum of those similarities, each weighted
 * by how rare the question word is in this memory (its IDF), over the sum of those weights: the share
 * of the question's words, by rarity, that the round matches, in [0, 1]. A word the round holds
 * itself counts 1, so this is BM25's matching made soft, not a second sentence vector.
 *
 * Rounds are read on the first search after they change, not when added, so opening a large memory
 * costs nothing here and no copy of their text is kept meanwhile: `textOf` reads it then. A search
 * compares the question's words with the memory's distinct words once each, then walks the postings
 * of the related ones only.
 */
export class SimilarWordsIndex {
  private readonly pending = new Set<string>();
  private readonly slotOf = new Map<string, number>();
  private readonly roundIdAt: (string | undefined)[] = [];
  private readonly rowsAt: (readonly number[] | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  /** Per table row, the slots of the rounds that hold the word. */
  private readonly postings = new Map<number, number[]>();

  constructor(
    private readonly vectors: WordVectors,
    private readonly textOf: (roundId: string) => string,
  ) {}

  /** Indexes (or re-indexes) a round's whole text, read with `textOf` on the next search. */
  set(roundId: string): void {
    this.remove(roundId);
    this.pending.add(roundId);
  }

  remove(roundId: string): void {
    this.pending.delete(roundId);
    const slot = this.slotOf.get(roundId);
    if (slot === undefined) return;
    for (const row of this.rowsAt[slot]!) {
      const slots = this.postings.get(row)!;
      // Removal is rare (forget, update); postings stay plain arrays for the searches.
      slots.splice(slots.indexOf(slot), 1);
      if (slots.length === 0) this.postings.delete(row);
    }
    this.slotOf.delete(roundId);
    this.roundIdAt[slot] = undefined;
    this.rowsAt[slot] = undefined;
    this.freeSlots.push(slot);
  }

  private indexPending(): void {
    for (const roundId of this.pending) {
      const slot = this.freeSlots.pop() ?? this.roundIdAt.length;
      const rows = rowsOf(this.textOf(roundId), this.vectors);
      this.slotOf.set(roundId, slot);
      this.roundIdAt[slot] = roundId;
      this.rowsAt[slot] = rows;
      for (const row of rows) {
        let slots = this.postings.get(row);
        if (!slots) this.postings.set(row, (slots = []));
        slots.push(slot);
      }
    }
    this.pending.clear();
  }

  /** The best `limit` rounds for `text`, best first; rounds with no related word at all are left out. */
  search(text: string, limit: number, accept?: AcceptRound): LaneHit[] {
    this.indexPending();
    const query = rowsOf(text, this.vectors);
    if (query.length === 0 || limit <= 0) return [];
    const rounds = this.slotOf.size;
    const weights = query.map((row) => Math.log((rounds + 1) / ((this.postings.get(row)?.length ?? 0) + 0.5)));
    // best[slot × words + word]: the round's most similar word to each question word.
    const words = query.length;
    const best = new Float32Array(this.roundIdAt.length * words);
    const touched: number[] = [];
    const isTouched = new Uint8Array(this.roundIdAt.length);
    for (const [row, slots] of this.postings) {
      for (let word = 0; word < words; word++) {
        const similarity = query[word] === row ? 1 : this.vectors.similarity(query[word]!, row);
        if (similarity < SIMILAR_WORD_MIN) continue;
        for (const slot of slots) {
          const at = slot * words + word;
          if (similarity <= best[at]!) continue;
          if (isTouched[slot] === 0) {
            isTouched[slot] = 1;
            touched.push(slot);
          }
          best[at] = similarity;
        }
      }
    }
    // Scores are the share of the question's words (by rarity) a round matches, in [0, 1].
    const total = weights.reduce((sum, weight) => sum + weight, 0) || 1;
    const top = new TopK(limit);
    for (const slot of touched) {
      if (accept && !accept(this.roundIdAt[slot]!)) continue;
      let score = 0;
      for (let word = 0; word < words; word++) score += weights[word]! * best[slot * words + word]!;
      top.offer(slot, score / total);
    }
    return top.sorted().map(({ key, score }) => ({ unitId: this.roundIdAt[key]!, roundId: this.roundIdAt[key]!, score }));
  }
}
