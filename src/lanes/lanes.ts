import type { AcceptRound, LaneHit, UnitInfo } from '../core/run.js';
import { captionUnitId, derivedUnitId, imageUnitId, textUnitId } from '../core/unit-ids.js';
import type { Lane, Role, UnitKind, WordVectors } from '../types.js';
import { Bm25Index, ORAMA_BM25, buildBm25Section, createWholeWordTokenizer, type Bm25Part, type Bm25Section } from './bm25.js';
import { buildSegment, mergeSegments, ROLES, UNIT_KINDS, type SegmentData, type SegmentRound, type VectorSection } from './segment.js';
import { SegmentDamage } from './segment-file.js';
import { SimilarWordsIndex, buildWordsSection, wordRowsId, wordRowsOf, type WordsPart } from './similar-words.js';
import { TopK } from './top-k.js';
import { FloatRows } from './float-rows.js';
import { VectorMatrix, type VectorRows } from './vector-matrix.js';

/**
 * BM25 for round documents: weak length normalisation. A round's length says how much was said, not
 * how far off topic it went; Orama's b = 0.75 let two-line greetings outrank the exchange that answers.
 */
const ROUND_BM25 = { ...ORAMA_BM25, b: 0.3 };
/** Dead rows a matrix tolerates (as a share of its rows) before it is compacted. */
const DEAD_ROWS_BEFORE_COMPACTING = 0.25;

/** A segment as the commit records it: its name, how many rounds it holds, and which of them are dead (local numbers). */
export interface SegmentEntry {
  readonly id: string;
  readonly rounds: number;
  readonly dead: readonly number[];
}

/** A unit as the lanes know it: everything but its text, which stays with its round in storage. */
export interface UnitFacts {
  readonly id: string;
  readonly roundId: string;
  readonly lane: Lane;
  readonly kind: UnitKind;
  readonly role: Role;
  readonly imageId?: string;
}

/** One segment in memory: its rounds (local number → slot), what died since it was written, and its postings. */
class SegmentView {
  readonly dead = new Set<number>();
  constructor(
    readonly id: string,
    readonly roundIds: readonly string[],
    readonly images: readonly string[],
    readonly slots: Int32Array,
    readonly rounds: Bm25Part,
    readonly captions: Bm25Part,
    readonly words: { readonly table: string; readonly part: WordsPart } | undefined,
  ) {}

  entry(): SegmentEntry {
    return { id: this.id, rounds: this.roundIds.length, dead: [...this.dead].sort((a, b) => a - b) };
  }
}

/** A lane's vectors, with what each row is: its round's slot, kind, role and image. */
class LaneRows {
  slot = new Int32Array(256);
  kind = new Uint8Array(256);
  role = new Uint8Array(256);
  imageIds: (string | undefined)[] = [];
  dead = 0;

  constructor(readonly matrix: VectorRows) {}

  get size(): number {
    return this.matrix.size;
  }

  append(section: VectorSection, slots: Int32Array, images: readonly string[]): number {
    const first = this.matrix.addRows(section);
    this.reserve(this.matrix.size);
    const { owner, image } = section;
    for (let row = 0; row < owner.length; row++) this.slot[first + row] = slots[owner[row]!]!;
    this.kind.set(section.kind, first);
    this.role.set(section.role, first);
    this.imageIds.length = this.matrix.size;
    for (let row = 0; row < image.length; row++) if (image[row]! >= 0) this.imageIds[first + row] = images[image[row]!];
    return first;
  }

  unitId(row: number, roundId: string): string {
    const kind = UNIT_KINDS[this.kind[row]!]!;
    const imageId = this.imageIds[row];
    if (kind === 'text') return textUnitId(roundId, ROLES[this.role[row]!]!);
    if (kind === 'caption') return captionUnitId(imageId!);
    if (kind === 'derived') return derivedUnitId(imageId!);
    return imageUnitId(imageId!);
  }

  /** Drops rows of dead slots; returns the old-to-new row map. */
  compact(isDead: (slot: number) => boolean): Int32Array {
    const moved = this.matrix.compact((row) => !isDead(this.slot[row]!));
    for (let row = 0; row < moved.length; row++) {
      const to = moved[row]!;
      if (to < 0 || to === row) continue;
      this.slot[to] = this.slot[row]!;
      this.kind[to] = this.kind[row]!;
      this.role[to] = this.role[row]!;
      this.imageIds[to] = this.imageIds[row];
    }
    this.imageIds.length = this.matrix.size;
    this.dead = 0;
    return moved;
  }

  private reserve(rows: number): void {
    if (rows <= this.slot.length) return;
    const size = Math.max(rows, this.slot.length * 2);
    const grow = <T extends Int32Array | Uint8Array>(array: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(array);
      return next;
    };
    this.slot = grow(this.slot, (n) => new Int32Array(n));
    this.kind = grow(this.kind, (n) => new Uint8Array(n));
    this.role = grow(this.role, (n) => new Uint8Array(n));
  }
}

/** Where one slot's rows are in a lane: rows of a round are always next to each other. */
class SlotRows {
  first = new Int32Array(1024).fill(-1);
  count = new Uint8Array(1024);

  reserve(slots: number): void {
    if (slots <= this.first.length) return;
    const first = new Int32Array(Math.max(slots, this.first.length * 2)).fill(-1);
    first.set(this.first);
    const count = new Uint8Array(first.length);
    count.set(this.count);
    this.first = first;
    this.count = count;
  }

  index(rows: LaneRows, from: number): void {
    for (let row = from; row < rows.size; row++) {
      const slot = rows.slot[row]!;
      if (this.count[slot] === 0) this.first[slot] = row;
      else if (this.first[slot]! + this.count[slot]! !== row) throw new SegmentDamage('the vectors of a round are not next to each other');
      if (this.count[slot] === 255) throw new SegmentDamage('a round with more than 255 units in one lane');
      this.count[slot]!++;
    }
  }

  reindex(rows: LaneRows): void {
    this.first.fill(-1);
    this.count.fill(0);
    this.index(rows, 0);
  }
}

/** Where opening's BM25 over single units gets a unit's text: from the rounds in storage. */
export type UnitTexts = (unitIds: readonly string[]) => Promise<ReadonlyMap<string, string>>;

/**
 * The text lane (dense over turn texts and captions; BM25 over whole rounds, over captions, and over
 * single units; similar words over whole rounds) and the image lane (cosine over image vectors), in
 * memory, over the memory's index segments. Each segment adds its postings as they are (typed arrays,
 * no tokenizing) and its int8 vectors to one matrix per lane. A round has a slot (its identity here);
 * forgetting or replacing it marks its slot dead, and every search leaves dead slots out until the
 * segment holding them is merged away.
 *
 * Retrieval ranks rounds, so BM25 keeps one document per round (its turns' text together) and one
 * per caption. BM25 over single units (`search({ signal: 'bm25' })`, the benchmark's unit-level
 * ablations) is built on first use from the rounds' texts (`prepareUnitIndex`) and kept up to date.
 */
export class Lanes {
  private readonly tokenizer = createWholeWordTokenizer();
  private views: SegmentView[] = [];
  private slotRound: string[] = [];
  private slotDead = new Uint8Array(1024);
  private slotView: (SegmentView | undefined)[] = [];
  private slotLocal = new Int32Array(1024);
  private readonly liveSlot = new Map<string, number>();
  private readonly imageSlot = new Map<string, number>();
  private readonly isDead = (slot: number) => this.slotDead[slot] === 1;
  /** Equal scores go in the rounds' history order, wherever their segments lie (see the constructor). */
  private readonly slotOrder = (slot: number) => this.roundOrder?.(this.slotRound[slot]!) ?? slot;
  private roundIndex = new Bm25Index(this.isDead, ROUND_BM25, this.slotOrder);
  private captionIndex = new Bm25Index(this.isDead, undefined, this.slotOrder);
  private similarWordsIndex: SimilarWordsIndex | undefined;
  /** What this memory's segments record their word rows as (`wordRowsId`); undefined without word vectors. */
  private readonly wordsId: string | undefined;
  private unitIndex: { index: Bm25Index; unitIds: string[][] } | undefined;
  private textRows: LaneRows;
  private textSlots = new SlotRows();
  private imageRows: LaneRows | undefined;
  private imageSlots = new SlotRows();
  /** Dot products of the query vectors `prepareDense` scanned for, until `endQuery`. */
  private readonly scanned = new Map<Float32Array, Float64Array>();

  /**
   * @param roundOrder a round's place in the history: every lane orders equal scores by it, so a
   *   round replaced into a later segment (an edit, a description) ties as it did before, and a
   *   memory indexed again from its rounds (an import, a rebuild) ranks exactly as the one it came
   *   from. Without it, equal scores go in segment order.
   * @param floatVectors keep float32 rows scored by exact dot products instead of int8 ones
   *   (`withFloatVectors` in `vmem/internal`, to measure what int8 costs); the segments it builds then
   *   carry their float vectors to `attach`, and stored segments cannot be attached.
   */
  constructor(
    private readonly textDimension: number,
    private readonly imageDimension: number | undefined,
    private readonly wordVectors?: WordVectors,
    private readonly roundOrder?: (roundId: string) => number | undefined,
    private readonly floatVectors = false,
  ) {
    const rows = (dimension: number): VectorRows => (floatVectors ? new FloatRows(dimension) : new VectorMatrix(dimension));
    this.textRows = new LaneRows(rows(textDimension));
    this.imageRows = imageDimension === undefined ? undefined : new LaneRows(rows(imageDimension));
    this.similarWordsIndex = wordVectors && new SimilarWordsIndex(wordVectors, this.isDead, this.slotOrder);
    this.wordsId = wordVectors && wordRowsId(wordVectors);
  }

  /** Live rounds. */
  get size(): number {
    return this.liveSlot.size;
  }

  /** The commit: every segment in order with its dead rounds. */
  entries(): SegmentEntry[] {
    return this.views.map((view) => view.entry());
  }

  has(roundId: string): boolean {
    return this.liveSlot.has(roundId);
  }

  /** The segment and local number of a live round (what a dead mark in the commit names). */
  locate(roundId: string): { segment: string; local: number } | undefined {
    const slot = this.liveSlot.get(roundId);
    const view = slot === undefined ? undefined : this.slotView[slot];
    return view && { segment: view.id, local: this.slotLocal[slot!]! };
  }

  /** Live rounds in segment order: a segment's rounds were added together, in their history order. */
  roundIds(): string[] {
    return this.views.flatMap((view) => this.liveOf(view));
  }

  /** The live rounds of one segment. */
  liveRoundsOf(id: string): string[] {
    return this.liveOf(this.viewOf(id));
  }

  private liveOf(view: SegmentView): string[] {
    return view.roundIds.filter((_, local) => !view.dead.has(local));
  }

  /**
   * Segments whose word rows are missing or from another table than this memory's: their rounds
   * need their words read again (`setWords`), which `similarWords` needs first.
   */
  segmentsWithoutWords(): string[] {
    if (!this.wordVectors) return [];
    return this.views.filter((view) => view.words?.table !== this.wordsId).map((view) => view.id);
  }

  // --- building and attaching segments

  /** Makes room for the rows of segments about to be attached (their `text` and `image` sections' rows). */
  reserve(segments: readonly SegmentData[]): void {
    const rows = (pick: (data: SegmentData) => VectorSection | undefined) => segments.reduce((sum, data) => sum + (pick(data)?.owner.length ?? 0), 0);
    this.textRows.matrix.reserveRows(this.textRows.size + rows((data) => data.text));
    this.imageRows?.matrix.reserveRows(this.imageRows.size + rows((data) => data.image));
  }

  /** The segment of new rounds (their units with vectors); `attach` it once storage has it. */
  build(rounds: readonly SegmentRound[]): SegmentData {
    const vectors = this.wordVectors;
    return buildSegment(rounds, {
      tokenize: (text) => this.tokenizer.tokenize(text),
      textDimension: this.textDimension,
      ...(this.imageDimension === undefined ? {} : { imageDimension: this.imageDimension }),
      ...(vectors ? { words: { table: this.wordsId!, rowsOf: (text: string) => wordRowsOf(text, vectors) } } : {}),
      keepFloats: this.floatVectors,
    });
  }

  /**
   * Adds a segment's rounds (after the ones already here); `dead` names the local rounds it holds
   * that were forgotten or replaced since. Rounds already live here are left dead in it (a crash can
   * not cause that, but nothing may be indexed twice). Copies what it keeps, so `data` may view
   * bytes the caller frees. With `unitTexts`, BM25 over single units (when built) gets its units too.
   */
  attach(id: string, data: SegmentData, dead: Iterable<number> = [], unitTexts?: ReadonlyMap<string, string>): void {
    for (const step of this.attachSteps(id, data, dead, unitTexts)) void step;
  }

  /**
   * `attach` in steps: between two, the caller may let the page run (an open attaches segments of
   * 16,000 rounds and more, whose vectors took 60-170 ms to copy in one go). Nothing else may use
   * the lanes until the last step is done.
   */
  *attachSteps(id: string, data: SegmentData, dead: Iterable<number> = [], unitTexts?: ReadonlyMap<string, string>): Generator<void, void, void> {
    if (data.text.dimension !== this.textDimension || (data.image && data.image.dimension !== this.imageDimension)) {
      throw new SegmentDamage(`vectors of ${data.text.dimension} dimensions in a memory of ${this.textDimension}`);
    }
    const deadSet = new Set(dead);
    const first = this.slotRound.length;
    this.reserveSlots(first + data.roundIds.length);
    const slots = Int32Array.from(data.roundIds, (_, local) => first + local);
    const words = data.words && { table: data.words.table, part: { section: copyWords(data.words.section), roundSlot: slots } };
    const view = new SegmentView(id, data.roundIds, data.images, slots, this.part(data.rounds, slots), this.part(data.captions, slots), words);
    data.roundIds.forEach((roundId, local) => {
      const slot = first + local;
      this.slotRound.push(roundId);
      this.slotView.push(view);
      this.slotLocal[slot] = local;
      if (deadSet.has(local) || this.liveSlot.has(roundId)) {
        this.slotDead[slot] = 1;
        view.dead.add(local);
      } else {
        this.liveSlot.set(roundId, slot);
      }
    });
    this.views.push(view);
    this.roundIndex.addPart(view.rounds);
    this.captionIndex.addPart(view.captions);
    if (words && words.table === this.wordsId) this.similarWordsIndex?.addPart(words.part);
    yield;
    yield* this.appendRows(data, slots);
    if (this.unitIndex && unitTexts) this.addUnitDocs(slots, unitTexts);
  }

  /** Marks a live round dead (forgotten, or replaced by a new version in a later segment). */
  kill(roundId: string): void {
    const slot = this.liveSlot.get(roundId);
    if (slot === undefined) return;
    this.slotDead[slot] = 1;
    this.liveSlot.delete(roundId);
    this.slotView[slot]!.dead.add(this.slotLocal[slot]!);
    this.textRows.dead += this.textSlots.count[slot]!;
    if (this.imageRows) this.imageRows.dead += this.imageSlots.count[slot]!;
    this.roundIndex.invalidate();
    this.captionIndex.invalidate();
    this.unitIndex?.index.invalidate();
    for (const [, rows, slots] of this.lanesWithSlots()) {
      for (let n = 0; n < slots.count[slot]!; n++) {
        const imageId = rows.imageIds[slots.first[slot]! + n];
        if (imageId !== undefined && this.imageSlot.get(imageId) === slot) this.imageSlot.delete(imageId);
      }
    }
    this.compactRows();
  }

  // --- merging (the memory decides when, storage keeps the result)

  /**
   * The segment holding the live rounds of the given adjacent segments, from what is in memory, and
   * the slots of its rounds. With `documentOf`, its word rows are read again from the rounds'
   * documents (for segments written without this memory's word table).
   */
  mergeData(ids: readonly string[], documentOf?: (roundId: string) => string): { data: SegmentData; slots: Int32Array } {
    const views = ids.map((id) => this.viewOf(id));
    const slots = Int32Array.from(views.flatMap((view) => [...view.slots].filter((_, local) => !view.dead.has(local))));
    const merged = mergeSegments(
      views.map((view) => ({ data: this.dataOf(view), keep: (local: number) => !view.dead.has(local) })),
      { textDimension: this.textDimension, ...(this.imageDimension === undefined ? {} : { imageDimension: this.imageDimension }) },
    );
    const vectors = this.wordVectors;
    if (!documentOf || !vectors) return { data: merged, slots };
    const words = buildWordsSection(merged.roundIds.flatMap((roundId, local) => {
      const document = documentOf(roundId);
      return document ? [{ local, rows: wordRowsOf(document, vectors) }] : [];
    }));
    return { data: { ...merged, words: { table: this.wordsId!, section: words } }, slots };
  }

  /** The commit once `replace(ids, id, …)` is done: rounds that died while it was made are dead in it. */
  entriesAfterMerge(ids: readonly string[], id: string, slots: Int32Array): SegmentEntry[] {
    const at = this.adjacentRun(ids);
    const dead = [...slots].flatMap((slot, local) => (this.slotDead[slot] === 1 ? [local] : []));
    const entries = this.entries();
    const replacement = slots.length === 0 ? [] : [{ id, rounds: slots.length, dead }];
    entries.splice(at, ids.length, ...replacement);
    return entries;
  }

  /**
   * Puts the merged segment in place of the segments it was made of (which must still be adjacent
   * here); an empty one just removes them. The vectors stay where they are.
   */
  replace(ids: readonly string[], id: string, data: SegmentData, slots: Int32Array): void {
    const at = this.adjacentRun(ids);
    if (slots.length !== data.roundIds.length) throw new Error('a merged segment and its slots differ in length');
    const views: SegmentView[] = [];
    if (slots.length > 0) {
      const words = data.words && { table: data.words.table, part: { section: copyWords(data.words.section), roundSlot: slots } };
      const view = new SegmentView(id, data.roundIds, data.images, slots, this.part(data.rounds, slots), this.part(data.captions, slots), words);
      slots.forEach((slot, local) => {
        this.slotView[slot] = view;
        this.slotLocal[slot] = local;
        if (this.slotDead[slot] === 1) view.dead.add(local);
      });
      views.push(view);
    }
    this.views.splice(at, ids.length, ...views);
    this.roundIndex.setParts(this.views.map((v) => v.rounds));
    this.captionIndex.setParts(this.views.map((v) => v.captions));
    this.similarWordsIndex?.setParts(this.views.flatMap((v) => (v.words && v.words.table === this.wordsId ? [v.words.part] : [])));
  }

  private adjacentRun(ids: readonly string[]): number {
    const at = this.views.findIndex((view) => view.id === ids[0]);
    if (at < 0 || ids.some((id, i) => this.views[at + i]?.id !== id)) throw new Error('the segments to merge are no longer adjacent');
    return at;
  }

  // --- searches

  unit(unitId: string): (UnitInfo & { readonly role: Role }) | undefined {
    const found = this.findRow(unitId);
    if (!found) return undefined;
    const { rows, row, slot } = found;
    const kind = UNIT_KINDS[rows.kind[row]!]!;
    const imageId = rows.imageIds[row];
    return { roundId: this.slotRound[slot]!, kind, role: ROLES[rows.role[row]!]!, ...(imageId ? { imageId } : {}) };
  }

  /** The units of a live round (no texts), text lane first. */
  unitsOf(roundId: string): UnitFacts[] {
    const slot = this.liveSlot.get(roundId);
    if (slot === undefined) return [];
    const out: UnitFacts[] = [];
    for (const [lane, rows, slots] of this.lanesWithSlots()) {
      for (let n = 0; n < slots.count[slot]!; n++) {
        const row = slots.first[slot]! + n;
        const imageId = rows.imageIds[row];
        out.push({ id: rows.unitId(row, roundId), roundId, lane, kind: UNIT_KINDS[rows.kind[row]!]!, role: ROLES[rows.role[row]!]!, ...(imageId ? { imageId } : {}) });
      }
    }
    return out;
  }

  /** A unit's stored vector, as floats (scale × int8 in the product). */
  vectorOf(unitId: string): Float32Array | undefined {
    const found = this.findRow(unitId);
    return found && found.rows.matrix.vector(found.row);
  }

  /** A text unit's stored vector. */
  textVector(unitId: string): Float32Array | undefined {
    const found = this.findRow(unitId);
    return found && found.rows === this.textRows ? found.rows.matrix.vector(found.row) : undefined;
  }

  /** BM25 over single text-lane units (turn texts and captions), or over captions alone. */
  bm25(text: string, limit: number, accept?: AcceptRound, captionsOnly = false): LaneHit[] {
    const tokens = this.tokenizer.tokenize(text);
    const filter = this.acceptSlot(accept);
    if (captionsOnly) {
      return this.captionIndex.search(tokens, limit, filter).map((hit) => {
        const view = this.slotView[hit.slot]!;
        const imageId = view.images[hit.part.section.tag[hit.doc]!]!;
        return { unitId: captionUnitId(imageId), roundId: this.slotRound[hit.slot]!, score: hit.score };
      });
    }
    const units = this.unitIndex;
    if (!units) throw new Error('BM25 over single units is not built: call prepareUnitIndex first');
    return units.index.search(tokens, limit, filter).map((hit) => {
      const part = units.index.sections.indexOf(hit.part);
      return { unitId: units.unitIds[part]![hit.doc]!, roundId: this.slotRound[hit.slot]!, score: hit.score };
    });
  }

  /** BM25 over whole rounds; each hit's `unitId` is the round id. */
  roundBm25(text: string, limit: number, accept?: AcceptRound): LaneHit[] {
    return this.roundIndex.search(this.tokenizer.tokenize(text), limit, this.acceptSlot(accept)).map((hit) => {
      const roundId = this.slotRound[hit.slot]!;
      return { unitId: roundId, roundId, score: hit.score };
    });
  }

  /** How many rounds hold each of the text's words (BM25's tokens), and how many rounds there are. */
  roundWordFrequencies(text: string): { readonly frequencies: readonly number[]; readonly documents: number } {
    return this.roundIndex.documentFrequencies(this.tokenizer.tokenize(text));
  }

  /** Rounds by the similarity of their words to the question's (empty without word vectors). */
  similarWords(text: string, limit: number, accept?: AcceptRound): LaneHit[] {
    const index = this.similarWordsIndex;
    if (!index) return [];
    return index.search(text, limit, this.slotRound.length, this.acceptSlot(accept)).map(({ slot, score }) => {
      const roundId = this.slotRound[slot]!;
      return { unitId: roundId, roundId, score };
    });
  }

  /**
   * Scans the lanes once for all of a query's vectors (the text lane's rows are read once for the
   * question and the content vector together); `dense` and `image` use these scores until `endQuery`.
   */
  prepareDense(text: readonly Float32Array[], image: readonly Float32Array[] = []): void {
    this.scanned.clear();
    const textScores = this.textRows.matrix.scan(text, true);
    text.forEach((vector, at) => this.scanned.set(vector, textScores[at]!));
    if (this.imageRows && image.length > 0) {
      const imageScores = this.imageRows.matrix.scan(image, true);
      image.forEach((vector, at) => this.scanned.set(vector, imageScores[at]!));
    }
  }

  endQuery(): void {
    this.scanned.clear();
  }

  dense(vector: Float32Array, limit: number, accept?: AcceptRound, captionsOnly = false): LaneHit[] {
    return this.nearest(this.textRows, vector, limit, accept, captionsOnly);
  }

  image(vector: Float32Array, limit: number, accept?: AcceptRound): LaneHit[] {
    return this.imageRows ? this.nearest(this.imageRows, vector, limit, accept, false) : [];
  }

  /** Every live unit with its vector, in segment order (what an export writes). */
  *allUnits(): Generator<UnitFacts & { readonly vector: Float32Array }> {
    for (const roundId of this.roundIds()) {
      for (const unit of this.unitsOf(roundId)) yield { ...unit, vector: this.vectorOf(unit.id)! };
    }
  }

  /**
   * Builds BM25 over single units from their texts (read once from the rounds), for
   * `search({ signal: 'bm25' })` and unit-level ablations; a no-op once built.
   */
  async prepareUnitIndex(texts: UnitTexts): Promise<void> {
    if (this.unitIndex) return;
    const slots = [...this.liveSlot.values()].sort((a, b) => a - b);
    const unitIds = slots.flatMap((slot) => this.textUnitIdsOf(slot));
    const read = await texts(unitIds);
    if (this.unitIndex) return;
    this.unitIndex = { index: new Bm25Index(this.isDead, undefined, this.slotOrder), unitIds: [] };
    this.addUnitDocs(Int32Array.from(slots), read);
  }

  get unitIndexReady(): boolean {
    return this.unitIndex !== undefined;
  }

  // --- internals

  private addUnitDocs(slots: Int32Array, texts: ReadonlyMap<string, string>): void {
    const units = this.unitIndex!;
    const docs: { owner: number; tag: number; tokens: string[] }[] = [];
    const ids: string[] = [];
    const docSlots: number[] = [];
    slots.forEach((slot) => {
      if (this.slotDead[slot] === 1) return;
      for (const unitId of this.textUnitIdsOf(slot)) {
        docs.push({ owner: 0, tag: -1, tokens: this.tokenizer.tokenize(texts.get(unitId) ?? '') });
        ids.push(unitId);
        docSlots.push(slot);
      }
    });
    if (docs.length === 0) return;
    units.index.addPart({ section: buildBm25Section(docs), docSlot: Int32Array.from(docSlots) });
    units.unitIds.push(ids);
  }

  private textUnitIdsOf(slot: number): string[] {
    const ids: string[] = [];
    for (let n = 0; n < this.textSlots.count[slot]!; n++) ids.push(this.textRows.unitId(this.textSlots.first[slot]! + n, this.slotRound[slot]!));
    return ids;
  }

  private nearest(rows: LaneRows, vector: Float32Array, limit: number, accept: AcceptRound | undefined, captionsOnly: boolean): LaneHit[] {
    if (limit <= 0 || rows.size === 0) return [];
    const scores = this.scanned.get(vector) ?? rows.matrix.scan([vector])[0]!;
    const top = new TopK(limit, (row) => this.slotOrder(rows.slot[row]!));
    const captionKind = UNIT_KINDS.indexOf('caption');
    const derivedKind = UNIT_KINDS.indexOf('derived');
    const { size, slot: slotOf, kind } = rows;
    const slotDead = this.slotDead;
    // The k-th best so far, kept in a local: most rows fall below it and cost one comparison.
    let threshold = -Infinity;
    for (let row = 0; row < size; row++) {
      const score = scores[row]!;
      if (score < threshold) continue;
      const slot = slotOf[row]!;
      if (slotDead[slot] === 1) continue;
      if (captionsOnly && kind[row] !== captionKind && kind[row] !== derivedKind) continue;
      if (accept && !accept(this.slotRound[slot]!)) continue;
      top.offer(row, score);
      if (top.full) threshold = top.threshold;
    }
    return top.sorted().map(({ key, score }) => {
      const roundId = this.slotRound[rows.slot[key]!]!;
      return { unitId: rows.unitId(key, roundId), roundId, score };
    });
  }

  private acceptSlot(accept: AcceptRound | undefined): ((slot: number) => boolean) | undefined {
    return accept && ((slot) => accept(this.slotRound[slot]!));
  }

  private findRow(unitId: string): { rows: LaneRows; row: number; slot: number } | undefined {
    const cut = unitId.lastIndexOf('#');
    if (cut < 0) return undefined;
    const owner = unitId.slice(0, cut);
    const suffix = unitId.slice(cut + 1);
    const isText = suffix === 'user' || suffix === 'assistant';
    const kind = isText ? 'text' : (suffix as UnitKind);
    if (!UNIT_KINDS.includes(kind)) return undefined;
    const slot = isText ? this.liveSlot.get(owner) : this.imageSlot.get(owner);
    if (slot === undefined) return undefined;
    const [rows, slots] = kind === 'image' ? [this.imageRows, this.imageSlots] : [this.textRows, this.textSlots];
    if (!rows) return undefined;
    const kindCode = UNIT_KINDS.indexOf(kind);
    for (let n = 0; n < slots.count[slot]!; n++) {
      const row = slots.first[slot]! + n;
      if (rows.kind[row] !== kindCode) continue;
      if (isText ? ROLES[rows.role[row]!] === suffix : rows.imageIds[row] === owner) return { rows, row, slot };
    }
    return undefined;
  }

  private *lanesWithSlots(): Generator<[Lane, LaneRows, SlotRows]> {
    yield ['text', this.textRows, this.textSlots];
    if (this.imageRows) yield ['image', this.imageRows, this.imageSlots];
  }

  private part(section: Bm25Section, slots: Int32Array): Bm25Part {
    const kept = copyBm25(section);
    const docSlot = new Int32Array(kept.owner.length);
    for (let doc = 0; doc < docSlot.length; doc++) docSlot[doc] = slots[kept.owner[doc]!]!;
    return { section: kept, docSlot };
  }

  /** A segment's vectors into the lanes, `ROWS_PER_STEP` rows a step. */
  private *appendRows(data: SegmentData, slots: Int32Array): Generator<void, void, void> {
    const lanes: [LaneRows, SlotRows, VectorSection][] = [[this.textRows, this.textSlots, data.text]];
    if (this.imageRows && data.image) lanes.push([this.imageRows, this.imageSlots, data.image]);
    for (const [rows, laneSlots, section] of lanes) {
      const first = rows.size;
      const count = section.scales.length;
      for (let from = 0; from === 0 || from < count; from += ROWS_PER_STEP) {
        if (from > 0) yield;
        rows.append(count <= ROWS_PER_STEP ? section : sectionRows(section, from, Math.min(count, from + ROWS_PER_STEP)), slots, data.images);
      }
      laneSlots.reserve(this.slotRound.length);
      laneSlots.index(rows, first);
      this.indexImages(rows, first);
    }
  }

  private indexImages(rows: LaneRows, from: number): void {
    const { imageIds, slot } = rows;
    for (let row = from; row < imageIds.length; row++) {
      const imageId = imageIds[row];
      if (imageId !== undefined && this.slotDead[slot[row]!] === 0) this.imageSlot.set(imageId, slot[row]!);
    }
  }

  private compactRows(): void {
    for (const [, rows, slots] of this.lanesWithSlots()) {
      if (rows.dead <= rows.size * DEAD_ROWS_BEFORE_COMPACTING) continue;
      rows.compact(this.isDead);
      slots.reindex(rows);
    }
  }

  private reserveSlots(slots: number): void {
    if (slots <= this.slotDead.length) return;
    const size = Math.max(slots, this.slotDead.length * 2);
    const dead = new Uint8Array(size);
    dead.set(this.slotDead);
    this.slotDead = dead;
    const local = new Int32Array(size);
    local.set(this.slotLocal);
    this.slotLocal = local;
  }

  private viewOf(id: string): SegmentView {
    const view = this.views.find((candidate) => candidate.id === id);
    if (!view) throw new Error(`no segment ${id} in this memory`);
    return view;
  }

  /** A segment's data as it is in memory: its postings, and its rounds' vectors from the matrices. */
  private dataOf(view: SegmentView): SegmentData {
    const vectors = (rows: LaneRows, slots: SlotRows, dimension: number): VectorSection => {
      const picked: number[] = [];
      view.slots.forEach((slot) => {
        for (let n = 0; n < slots.count[slot]!; n++) picked.push(slots.first[slot]! + n);
      });
      const values = new Int8Array(picked.length * dimension);
      const scales = new Float32Array(picked.length);
      const imageIndex = new Map(view.images.map((imageId, index) => [imageId, index]));
      picked.forEach((row, at) => {
        const quantized = rows.matrix.quantized(row);
        values.set(quantized.values, at * dimension);
        scales[at] = quantized.scale;
      });
      return {
        dimension,
        values,
        scales,
        owner: Uint32Array.from(picked, (row) => this.slotLocal[rows.slot[row]!]!),
        kind: Uint8Array.from(picked, (row) => rows.kind[row]!),
        role: Uint8Array.from(picked, (row) => rows.role[row]!),
        image: Int32Array.from(picked, (row) => {
          const imageId = rows.imageIds[row];
          return imageId === undefined ? -1 : imageIndex.get(imageId)!;
        }),
      };
    };
    return {
      roundIds: view.roundIds,
      images: view.images,
      rounds: view.rounds.section,
      captions: view.captions.section,
      ...(view.words ? { words: { table: view.words.table, section: view.words.part.section } } : {}),
      text: vectors(this.textRows, this.textSlots, this.textDimension),
      ...(this.imageRows ? { image: vectors(this.imageRows, this.imageSlots, this.imageDimension!) } : {}),
    };
  }
}

function copyBm25(section: Bm25Section): Bm25Section {
  return {
    owner: section.owner.slice(),
    tag: section.tag.slice(),
    lengths: section.lengths.slice(),
    terms: { units: section.terms.units.slice(), ends: section.terms.ends.slice() },
    minLength: section.minLength.slice(),
    starts: section.starts.slice(),
    postings: section.postings.slice(),
  };
}

function copyWords(section: WordsPart['section']): WordsPart['section'] {
  return { members: section.members.slice(), rows: section.rows.slice(), starts: section.starts.slice(), holders: section.holders.slice() };
}

/** Rows appended per step of `attachSteps` (about 5 MB of 1280-d vectors). */
const ROWS_PER_STEP = 4096;

/** Rows `[from, to)` of a vector section, as views. */
function sectionRows(section: VectorSection, from: number, to: number): VectorSection {
  const { dimension } = section;
  return {
    dimension,
    values: section.values.subarray(from * dimension, to * dimension),
    scales: section.scales.subarray(from, to),
    owner: section.owner.subarray(from, to),
    kind: section.kind.subarray(from, to),
    role: section.role.subarray(from, to),
    image: section.image.subarray(from, to),
    ...(section.floats ? { floats: section.floats.subarray(from * dimension, to * dimension) } : {}),
  };
}
