import type { LaneHit } from '../core/retrieve.js';
import type { StoredUnit } from '../types.js';
import { Bm25Index } from './bm25.js';
import { VectorMatrix } from './vector-matrix.js';

/** Unit facts the lanes keep in memory (vectors live in the matrices). */
export type IndexedUnit = Omit<StoredUnit, 'vector'>;

/**
 * The text lane (BM25 + dense over turn texts and captions) and the image lane (cosine over image
 * vectors), with the unit table both share.
 */
export class Lanes {
  private bm25Index = new Bm25Index();
  private textVectors: VectorMatrix;
  private imageVectors: VectorMatrix | undefined;
  private readonly units = new Map<string, IndexedUnit>();
  private readonly unitsOfRound = new Map<string, string[]>();

  constructor(
    private readonly textDimension: number,
    private readonly imageDimension: number | undefined,
  ) {
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
    for (const unit of units) {
      if (this.units.has(unit.id)) continue;
      const { vector: _vector, ...facts } = unit as StoredUnit;
      if (unit.lane === 'text') textDocs.push({ id: unit.id, text: unit.text ?? '' });
      this.units.set(unit.id, facts);
      const ofRound = this.unitsOfRound.get(unit.roundId);
      if (ofRound) ofRound.push(unit.id);
      else this.unitsOfRound.set(unit.roundId, [unit.id]);
    }
    this.bm25Index.insert(textDocs);
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
    this.bm25Index.remove(textIds);
    for (const id of unitIds) {
      this.textVectors.remove(id);
      this.imageVectors?.remove(id);
      this.units.delete(id);
    }
    this.unitsOfRound.delete(roundId);
  }

  /** Starts empty indexes (cheaper than removing every round one by one). */
  clear(): void {
    this.bm25Index = new Bm25Index();
    this.textVectors = new VectorMatrix(this.textDimension);
    this.imageVectors = this.imageDimension === undefined ? undefined : new VectorMatrix(this.imageDimension);
    this.units.clear();
    this.unitsOfRound.clear();
  }

  bm25(text: string, limit: number, accept?: (roundId: string) => boolean): LaneHit[] {
    // The filter applies inside the search, so it keeps the best accepted units and never starves the pool.
    const acceptUnit = accept && ((unitId: string) => {
      const unit = this.units.get(unitId);
      return unit !== undefined && accept(unit.roundId);
    });
    return this.toLaneHits(this.bm25Index.search(text, limit, acceptUnit), limit);
  }

  dense(vector: Float32Array, limit: number, accept?: (roundId: string) => boolean, captionsOnly = false): LaneHit[] {
    const filter =
      accept || captionsOnly
        ? (unitId: string) => {
            const unit = this.units.get(unitId);
            return unit !== undefined && (!captionsOnly || unit.kind === 'caption' || unit.kind === 'derived') && (!accept || accept(unit.roundId));
          }
        : undefined;
    return this.toLaneHits(this.textVectors.nearest(vector, limit, filter), limit);
  }

  image(vector: Float32Array, limit: number, accept?: (roundId: string) => boolean): LaneHit[] {
    if (!this.imageVectors) return [];
    const filter = accept ? (unitId: string) => accept(this.units.get(unitId)?.roundId ?? '') : undefined;
    return this.toLaneHits(this.imageVectors.nearest(vector, limit, filter), limit);
  }

  private toLaneHits(hits: readonly { id: string; score: number }[], limit: number, accept?: (roundId: string) => boolean): LaneHit[] {
    const out: LaneHit[] = [];
    for (const hit of hits) {
      const unit = this.units.get(hit.id);
      if (!unit || (accept && !accept(unit.roundId))) continue;
      out.push({ unitId: hit.id, roundId: unit.roundId, score: hit.score });
      if (out.length >= limit) break;
    }
    return out;
  }
}
