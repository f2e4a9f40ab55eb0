import type { AcceptRound, LaneHit } from '../core/run.js';
import type { WordVectors } from '../types.js';
import { STOP_WORDS } from './stop-words.js';
import { TopK } from './top-k.js';

// Chat fillers: in nearly every turn, so a question word that merely resembles one learns nothing.
const FILLERS = 'oh hey hi yeah wow thanks thank like get got go going gonna lot really s t don'.split(' ');
const IGNORED = new Set([...STOP_WORDS, ...FILLERS]);

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
 * by how rare the question word is in this memory (its IDF). A word the round holds itself counts 1,
 * so this is BM25's matching made soft, not a second sentence vector.
 */
export class SimilarWordsIndex {
  private readonly rowsOfRound = new Map<string, readonly number[]>();
  private readonly roundsWithRow = new Map<number, number>();

  constructor(private readonly vectors: WordVectors) {}

  /** Indexes (or re-indexes) a round's whole text. */
  set(roundId: string, text: string): void {
    this.remove(roundId);
    const rows = rowsOf(text, this.vectors);
    this.rowsOfRound.set(roundId, rows);
    for (const row of rows) this.roundsWithRow.set(row, (this.roundsWithRow.get(row) ?? 0) + 1);
  }

  remove(roundId: string): void {
    const rows = this.rowsOfRound.get(roundId);
    if (!rows) return;
    for (const row of rows) {
      const left = this.roundsWithRow.get(row)! - 1;
      if (left === 0) this.roundsWithRow.delete(row);
      else this.roundsWithRow.set(row, left);
    }
    this.rowsOfRound.delete(roundId);
  }

  /** The best `limit` rounds for `text`, best first; rounds with no similar word at all are left out. */
  search(text: string, limit: number, accept?: AcceptRound): LaneHit[] {
    const query = rowsOf(text, this.vectors);
    if (query.length === 0 || limit <= 0) return [];
    const rounds = this.rowsOfRound.size;
    const weights = query.map((row) => Math.log((rounds + 1) / ((this.roundsWithRow.get(row) ?? 0) + 0.5)));
    // A memory repeats its words: each distinct word is compared with the question once.
    const similarities = new Map<number, Float32Array>();
    const similarityTo = (row: number): Float32Array => {
      let known = similarities.get(row);
      if (!known) {
        known = Float32Array.from(query, (queryRow) => (queryRow === row ? 1 : this.vectors.similarity(queryRow, row)));
        similarities.set(row, known);
      }
      return known;
    };
    const best = new Float32Array(query.length);
    const roundIds = [...this.rowsOfRound.keys()];
    const top = new TopK(limit);
    roundIds.forEach((roundId, at) => {
      if (accept && !accept(roundId)) return;
      const rows = this.rowsOfRound.get(roundId)!;
      best.fill(0);
      for (const row of rows) {
        const known = similarityTo(row);
        for (let word = 0; word < query.length; word++) if (known[word]! > best[word]!) best[word] = known[word]!;
      }
      let score = 0;
      for (let word = 0; word < query.length; word++) score += weights[word]! * best[word]!;
      if (score > 0) top.offer(at, score);
    });
    return top.sorted().map(({ key, score }) => ({ unitId: roundIds[key]!, roundId: roundIds[key]!, score }));
  }
}
