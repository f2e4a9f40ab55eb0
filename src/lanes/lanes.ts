import type { AcceptRound, LaneHit } from '../core/run.js';
import type { StoredUnit, WordVectors } from '../types.js';
import { Bm25Index } from './bm25.js';
import { ORAMA_BM25 } from './bm25-topk.js';
import { SimilarWordsIndex } from './similar-words.js';
import { VectorMatrix } from './vector-matrix.js';

/** Unit facts the lanes keep in memory (vectors live in the matrices). */
export type IndexedUnit = Omit<StoredUnit, 'vector'>;

/**
 * The text lane (dense over turn texts and captions; BM25 over whole rounds, over captions, and over
 * single units) and the image lane (cosine over image vectors), with the unit table both share.
 *
 * Retrieval ranks rounds, so BM25 keeps one document per round (its turns' text together) and one
 * per caption, built as units arrive. BM25 over single units (`search({ signal: 'bm25' })`, the
 * benchmark's unit-level ablations) is built on first use and kept up to date from then on: opening
 * a memory indexes each text once.
 */
/**
 * BM25 for round documents: weak length normalisation. A round's length says how much was said, not
 * how far off topic it went; Orama's b = 0.75 let two-line greetings outrank the exchange that answers.
 */
const ROUND_BM25 = { ...ORAMA_BM25, b: 0.3 };

export class Lanes {
  private roundIndex = new Bm25Index(ROUND_BM25);
  private similarWordsIndex: SimilarWordsIndex | undefined;
  private captionIndex = new Bm25Index();
  private unitIndex: Bm25Index | undefined;
  private textVectors: VectorMatrix;
  private imageVectors: VectorMatrix | undefined;
  private readonly units = new Map<string, IndexedUnit>();
  private readonly unitsOfRound = new Map<string, string[]>();

  constructor(
    private readonly textDimension: number,
    private readonly imageDimension: number | undefined,
    private readonly wordVectors?: WordVectors,
  ) {
    this.similarWordsIndex = this.newSimilarWordsIndex();
    this.textVectors = new VectorMatrix(textDimension);
    this.imageVectors = imageDimension === undefined ? undefined : new VectorMatrix(imageDimension);
  }

  unit(unitId: string): IndexedUnit | undefined {
    return this.units.get(unitId);
  }

  /** The stored unit with its vector, as storage keeps it. */
  storedUnit(unitId: string): StoredUnit | undefined {
    const facts = this.units.get(unitId);
    const vector = facts && (facts.lane === 'text' ? this.textVectors.get(unitId) : this.imageVectors?.get(unitId));
    return facts && vector ? { ...facts, vector } : undefined;
  }

  /** A text unit's stored vector (a copy). */
  textVector(unitId: string): Float32Array | undefined {
    return this.textVectors.get(unitId);
  }

  unitIdsOf(roundId: string): readonly string[] {
    return this.unitsOfRound.get(roundId) ?? [];
  }

  add(units: readonly StoredUnit[]): void {
    const fresh = units.filter((unit) => !this.units.has(unit.id));
    this.addFacts(fresh);
    this.addVectors(fresh, fresh.map((unit) => unit.vector));
  }

  /**
   * Opening a memory, first stage: unit facts and the text index, while the vectors are still
   * being read. The lanes answer nothing dense until `addVectors` has the same units' vectors.
   */
  addFacts(units: readonly IndexedUnit[]): void {
    const textDocs: { id: string; text: string }[] = [];
    const rounds = new Set<string>();
    for (const unit of units) {
      if (this.units.has(unit.id)) continue;
      const { vector: _vector, ...facts } = unit as StoredUnit;
      if (unit.lane === 'text') textDocs.push({ id: unit.id, text: unit.text ?? '' });
      this.units.set(unit.id, facts);
      const ofRound = this.unitsOfRound.get(unit.roundId);
      if (ofRound) ofRound.push(unit.id);
      else this.unitsOfRound.set(unit.roundId, [unit.id]);
      rounds.add(unit.roundId);
    }
    this.unitIndex?.insert(textDocs);
    this.captionIndex.insert(textDocs.filter((doc) => this.units.get(doc.id)!.kind === 'caption'));
    const roundDocs = [...rounds].flatMap((roundId) => {
      const text = this.roundText(roundId);
      return text ? [{ id: roundId, text }] : [];
    });
    this.roundIndex.insert(roundDocs);
    for (const doc of roundDocs) this.similarWordsIndex?.set(doc.id);
  }

  private newSimilarWordsIndex(): SimilarWordsIndex | undefined {
    return this.wordVectors && new SimilarWordsIndex(this.wordVectors, (roundId) => this.roundText(roundId));
  }

  /** A round's document: its text units (captions are already folded into their turn's text), user first. */
  private roundText(roundId: string): string {
    const texts = (this.unitsOfRound.get(roundId) ?? [])
      .map((id) => this.units.get(id)!)
      .filter((unit) => unit.lane === 'text' && unit.kind !== 'caption' && unit.text)
      .sort((a, b) => Number(a.role === 'assistant') - Number(b.role === 'assistant'));
    return texts.map((unit) => unit.text).join('\n');
  }

  /** Second stage: the vectors of units given to `addFacts` (same order), into the matrices. */
  addVectors(units: readonly IndexedUnit[], vectors: readonly Float32Array[]): void {
    const text: { ids: string[]; vectors: Float32Array[] } = { ids: [], vectors: [] };
    const image: { ids: string[]; vectors: Float32Array[] } = { ids: [], vectors: [] };
    units.forEach((unit, at) => {
      const into = unit.lane === 'text' ? text : image;
      into.ids.push(unit.id);
      into.vectors.push(vectors[at]!);
    });
    this.textVectors.addMany(text.ids, text.vectors);
    this.imageVectors?.addMany(image.ids, image.vectors);
  }

  removeRound(roundId: string): void {
    const unitIds = this.unitsOfRound.get(roundId) ?? [];
    const textIds = unitIds.filter((id) => this.units.get(id)?.lane === 'text');
    this.unitIndex?.remove(textIds);
    this.captionIndex.remove(textIds.filter((id) => this.units.get(id)!.kind === 'caption'));
    this.roundIndex.remove([roundId]);
    this.similarWordsIndex?.remove(roundId);
    for (const id of unitIds) {
      this.textVectors.remove(id);
      this.imageVectors?.remove(id);
      this.units.delete(id);
    }
    this.unitsOfRound.delete(roundId);
  }

  /** Starts empty indexes (cheaper than removing every round one by one). */
  clear(): void {
    this.roundIndex = new Bm25Index(ROUND_BM25);
    this.similarWordsIndex = this.newSimilarWordsIndex();
    this.captionIndex = new Bm25Index();
    this.unitIndex = undefined;
    this.textVectors = new VectorMatrix(this.textDimension);
    this.imageVectors = this.imageDimension === undefined ? undefined : new VectorMatrix(this.imageDimension);
    this.units.clear();
    this.unitsOfRound.clear();
  }

  /** BM25 over single text-lane units (turn texts and captions), or over captions alone. */
  bm25(text: string, limit: number, accept?: AcceptRound, captionsOnly = false): LaneHit[] {
    const index = captionsOnly ? this.captionIndex : this.unitIndexBuilt();
    // The filter applies inside the search, so it keeps the best accepted units and never starves the pool.
    return this.toLaneHits(index.search(text, limit, this.unitFilter(accept, false)), limit);
  }

  private unitIndexBuilt(): Bm25Index {
    if (!this.unitIndex) {
      this.unitIndex = new Bm25Index();
      this.unitIndex.insert([...this.units.values()].filter((unit) => unit.lane === 'text').map((unit) => ({ id: unit.id, text: unit.text ?? '' })));
    }
    return this.unitIndex;
  }

  /** BM25 over whole rounds; each hit's `unitId` is the round id. */
  roundBm25(text: string, limit: number, accept?: AcceptRound): LaneHit[] {
    return this.roundIndex.search(text, limit, accept).map((hit) => ({ unitId: hit.id, roundId: hit.id, score: hit.score }));
  }

  /** How many rounds hold each of the text's words (BM25's tokens), and how many rounds there are. */
  roundWordFrequencies(text: string): { readonly frequencies: readonly number[]; readonly documents: number } {
    return this.roundIndex.documentFrequencies(text);
  }

  /** Rounds by the similarity of their words to the question's (empty without word vectors). */
  similarWords(text: string, limit: number, accept?: AcceptRound): LaneHit[] {
    return this.similarWordsIndex?.search(text, limit, accept) ?? [];
  }

  dense(vector: Float32Array, limit: number, accept?: AcceptRound, captionsOnly = false): LaneHit[] {
    return this.toLaneHits(this.textVectors.nearest(vector, limit, this.unitFilter(accept, captionsOnly)), limit);
  }

  private unitFilter(accept: AcceptRound | undefined, captionsOnly: boolean): ((unitId: string) => boolean) | undefined {
    if (!accept && !captionsOnly) return undefined;
    return (unitId) => {
      const unit = this.units.get(unitId);
      return unit !== undefined && (!captionsOnly || unit.kind === 'caption' || unit.kind === 'derived') && (!accept || accept(unit.roundId));
    };
  }

  image(vector: Float32Array, limit: number, accept?: AcceptRound): LaneHit[] {
    if (!this.imageVectors) return [];
    const filter = accept ? (unitId: string) => accept(this.units.get(unitId)?.roundId ?? '') : undefined;
    return this.toLaneHits(this.imageVectors.nearest(vector, limit, filter), limit);
  }

  private toLaneHits(hits: readonly { id: string; score: number }[], limit: number): LaneHit[] {
    const out: LaneHit[] = [];
    for (const hit of hits) {
      const unit = this.units.get(hit.id);
      if (!unit) continue;
      out.push({ unitId: hit.id, roundId: unit.roundId, score: hit.score });
      if (out.length >= limit) break;
    }
    return out;
  }
}
