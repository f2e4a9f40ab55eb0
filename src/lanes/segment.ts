/**
 * What one index segment holds, for a batch of rounds: their ids, BM25 postings of the round
 * documents and of the captions, the similar-words rows (when the memory has word vectors), and the
 * units' vectors as int8 with one scale each. Built when rounds are added, read back when a memory
 * opens (nothing is tokenized or encoded again), merged in the background. Written in the container
 * of segment-file.ts.
 */
import type { Role, StoredUnit, UnitKind } from '../types.js';
import { buildBm25Section, mergeBm25Sections, type Bm25Section } from './bm25.js';
import { decodeSegment, encodeSegment, SegmentDamage, type SectionArray, type SegmentSections } from './segment-file.js';
import { buildWordsSection, mergeWordsSections, type WordsSection } from './similar-words.js';
import { decodeStrings, encodeStrings } from './string-table.js';
import { quantize } from './vector-matrix.js';

const KIND = 'vmem-index';
export const UNIT_KINDS: readonly UnitKind[] = ['text', 'caption', 'derived', 'image'];
export const ROLES: readonly Role[] = ['user', 'assistant'];

/** Vectors of one lane: per row its int8 values (`dimension` each), scale, round (local), kind, role and image. */
export interface VectorSection {
  readonly dimension: number;
  readonly values: Int8Array;
  readonly scales: Float32Array;
  readonly owner: Uint32Array;
  /** Index into `UNIT_KINDS`. */
  readonly kind: Uint8Array;
  /** Index into `ROLES`. */
  readonly role: Uint8Array;
  /** Index into the segment's `images`, or -1. */
  readonly image: Int32Array;
  /**
   * The rows as the float32 vectors they were quantized from: only in a segment just built with
   * `keepFloats` (for lanes of float rows, `vmem/internal`); never written to storage.
   */
  readonly floats?: Float32Array;
}

export interface SegmentData {
  readonly roundIds: readonly string[];
  /** Image ids the units refer to. */
  readonly images: readonly string[];
  /** One document per round with text (its turns' text together). */
  readonly rounds: Bm25Section;
  /** One document per caption unit; `tag` is its image. */
  readonly captions: Bm25Section;
  /** The rounds' words as rows of the word-vector table `table`. */
  readonly words?: { readonly table: string; readonly section: WordsSection };
  readonly text: VectorSection;
  readonly image?: VectorSection;
}

/** A round to index: its id and its units, vectors included. */
export interface SegmentRound {
  readonly id: string;
  readonly units: readonly StoredUnit[];
}

/** What building a segment needs besides the rounds. */
export interface SegmentContext {
  readonly tokenize: (text: string) => string[];
  readonly textDimension: number;
  readonly imageDimension?: number;
  /** The word table and a round's words as its rows, when the memory has word vectors. */
  readonly words?: { readonly table: string; readonly rowsOf: (text: string) => number[] };
  /** Also carry the units' float32 vectors (`VectorSection.floats`), for lanes of float rows. @default false */
  readonly keepFloats?: boolean;
}

/**
 * A round's document for BM25 and similar words: its text-lane units other than captions (turn texts,
 * which already hold their captions, and machine-derived descriptions), the user's first.
 */
export function roundDocument(units: readonly Pick<StoredUnit, 'lane' | 'kind' | 'role' | 'text'>[]): string {
  return units
    .filter((unit) => unit.lane === 'text' && unit.kind !== 'caption' && unit.text)
    .sort((a, b) => Number(a.role === 'assistant') - Number(b.role === 'assistant'))
    .map((unit) => unit.text)
    .join('\n');
}

export function buildSegment(rounds: readonly SegmentRound[], context: SegmentContext): SegmentData {
  const images: string[] = [];
  const imageIndex = new Map<string, number>();
  const imageOf = (id: string | undefined) => {
    if (id === undefined) return -1;
    let index = imageIndex.get(id);
    if (index === undefined) {
      index = images.length;
      images.push(id);
      imageIndex.set(id, index);
    }
    return index;
  };
  const roundDocs: { owner: number; tag: number; tokens: string[] }[] = [];
  const captionDocs: { owner: number; tag: number; tokens: string[] }[] = [];
  const wordRounds: { local: number; rows: number[] }[] = [];
  const keepFloats = context.keepFloats === true;
  const text = new VectorBuilder(context.textDimension, keepFloats);
  const image = context.imageDimension === undefined ? undefined : new VectorBuilder(context.imageDimension, keepFloats);
  rounds.forEach((round, local) => {
    const document = roundDocument(round.units);
    if (document) {
      roundDocs.push({ owner: local, tag: -1, tokens: context.tokenize(document) });
      if (context.words) wordRounds.push({ local, rows: context.words.rowsOf(document) });
    }
    for (const unit of round.units) {
      if (unit.lane === 'text' && unit.kind === 'caption') captionDocs.push({ owner: local, tag: imageOf(unit.imageId), tokens: context.tokenize(unit.text ?? '') });
      const into = unit.lane === 'text' ? text : image;
      if (!into) throw new RangeError(`round ${round.id} has an image unit, and the memory has no image lane`);
      into.add(unit, local, imageOf(unit.imageId));
    }
  });
  return {
    roundIds: rounds.map((round) => round.id),
    images,
    rounds: buildBm25Section(roundDocs),
    captions: buildBm25Section(captionDocs),
    ...(context.words ? { words: { table: context.words.table, section: buildWordsSection(wordRounds) } } : {}),
    text: text.build(),
    ...(image ? { image: image.build() } : {}),
  };
}

class VectorBuilder {
  private readonly values: Int8Array[] = [];
  private readonly scales: number[] = [];
  private readonly owner: number[] = [];
  private readonly kind: number[] = [];
  private readonly role: number[] = [];
  private readonly image: number[] = [];
  private readonly floats: Float32Array[] | undefined;

  constructor(private readonly dimension: number, keepFloats = false) {
    this.floats = keepFloats ? [] : undefined;
  }

  add(unit: StoredUnit, local: number, image: number): void {
    if (unit.vector.length !== this.dimension) throw new RangeError(`unit ${unit.id} has ${unit.vector.length} dimensions, its lane holds ${this.dimension}`);
    this.floats?.push(unit.vector);
    const quantized = quantize(unit.vector);
    this.push(quantized.values, quantized.scale, local, UNIT_KINDS.indexOf(unit.kind), ROLES.indexOf(unit.role), image);
  }

  push(values: Int8Array, scale: number, local: number, kind: number, role: number, image: number): void {
    this.values.push(values);
    this.scales.push(scale);
    this.owner.push(local);
    this.kind.push(kind);
    this.role.push(role);
    this.image.push(image);
  }

  build(): VectorSection {
    const values = new Int8Array(this.values.length * this.dimension);
    this.values.forEach((row, at) => values.set(row, at * this.dimension));
    const floats = this.floats && new Float32Array(this.floats.length * this.dimension);
    this.floats?.forEach((row, at) => floats!.set(row, at * this.dimension));
    return {
      dimension: this.dimension,
      values,
      scales: Float32Array.from(this.scales),
      owner: Uint32Array.from(this.owner),
      kind: Uint8Array.from(this.kind),
      role: Uint8Array.from(this.role),
      image: Int32Array.from(this.image),
      ...(floats ? { floats } : {}),
    };
  }
}

/** A segment to fold into a merge, and which of its local rounds survive. */
export interface SegmentMergeInput {
  readonly data: SegmentData;
  readonly keep: (local: number) => boolean;
}

/** One segment with the surviving rounds of `inputs`, in input order (so insertion order survives). */
export function mergeSegments(inputs: readonly SegmentMergeInput[], context: Pick<SegmentContext, 'textDimension' | 'imageDimension'>): SegmentData {
  const roundIds: string[] = [];
  const images: string[] = [];
  const renumbers = inputs.map(({ data, keep }) => {
    const renumber = new Int32Array(data.roundIds.length).fill(-1);
    data.roundIds.forEach((id, local) => {
      if (!keep(local)) return;
      renumber[local] = roundIds.length;
      roundIds.push(id);
    });
    return renumber;
  });
  const imageMaps = inputs.map(({ data }) =>
    data.images.map((id) => {
      images.push(id);
      return images.length - 1;
    }),
  );
  const bm25 = (pick: (data: SegmentData) => Bm25Section) =>
    mergeBm25Sections(
      inputs.map(({ data }, i) => ({
        section: pick(data),
        keep: (doc) => renumbers[i]![pick(data).owner[doc]!]! >= 0,
        owner: (owner) => renumbers[i]![owner]!,
        tag: (tag) => (tag < 0 ? -1 : imageMaps[i]![tag]!),
      })),
    );
  const tables = new Set(inputs.map(({ data }) => data.words?.table));
  const table = tables.size === 1 ? [...tables][0] : undefined;
  const vectors = (pick: (data: SegmentData) => VectorSection | undefined, dimension: number) => {
    const builder = new VectorBuilder(dimension);
    inputs.forEach(({ data }, i) => {
      const section = pick(data);
      if (!section) return;
      for (let row = 0; row < section.owner.length; row++) {
        const local = renumbers[i]![section.owner[row]!]!;
        if (local < 0) continue;
        const image = section.image[row]!;
        builder.push(section.values.subarray(row * dimension, (row + 1) * dimension), section.scales[row]!, local, section.kind[row]!, section.role[row]!, image < 0 ? -1 : imageMaps[i]![image]!);
      }
    });
    return builder.build();
  };
  const merged: SegmentData = {
    roundIds,
    images,
    rounds: bm25((data) => data.rounds),
    captions: bm25((data) => data.captions),
    // Words of different tables (or none) cannot be merged: the memory indexes them again from the texts.
    ...(table !== undefined
      ? { words: { table, section: mergeWordsSections(inputs.map(({ data }, i) => ({ section: data.words!.section, renumber: renumbers[i]! }))) } }
      : {}),
    text: vectors((data) => data.text, context.textDimension),
    ...(context.imageDimension !== undefined ? { image: vectors((data) => data.image, context.imageDimension) } : {}),
  };
  return withUsedImages(merged);
}

/** Drops image ids no unit of the segment refers to any more (after a merge left rounds out). */
function withUsedImages(data: SegmentData): SegmentData {
  const used = new Int32Array(data.images.length).fill(-1);
  const images: string[] = [];
  const mark = (tag: number) => {
    if (tag >= 0 && used[tag] === -1) {
      used[tag] = images.length;
      images.push(data.images[tag]!);
    }
  };
  data.captions.tag.forEach(mark);
  data.text.image.forEach(mark);
  data.image?.image.forEach(mark);
  const remap = (tags: Int32Array) => tags.map((tag) => (tag < 0 ? -1 : used[tag]!));
  return {
    ...data,
    images,
    captions: { ...data.captions, tag: remap(data.captions.tag) },
    text: { ...data.text, image: remap(data.text.image) },
    ...(data.image ? { image: { ...data.image, image: remap(data.image.image) } } : {}),
  };
}

/** The segment's bytes. */
export function encodeSegmentData(data: SegmentData): Uint8Array {
  const roundIds = encodeStrings(data.roundIds);
  const images = encodeStrings(data.images);
  const sections: Record<string, SectionArray> = {
    'round.ids': roundIds.units,
    'round.ends': roundIds.ends,
    'image.ids': images.units,
    'image.ends': images.ends,
    ...bm25Sections('bm25.rounds', data.rounds),
    ...bm25Sections('bm25.captions', data.captions),
    ...(data.words
      ? { 'words.members': data.words.section.members, 'words.rows': data.words.section.rows, 'words.starts': data.words.section.starts, 'words.holders': data.words.section.holders }
      : {}),
    ...vectorSections('vectors.text', data.text),
    ...(data.image ? vectorSections('vectors.image', data.image) : {}),
  };
  // The nonce makes every written segment a new name: a round forgotten and added again word for
  // word must not produce the name of the segment that still holds its dead copy.
  const nonce = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  return encodeSegment(
    KIND,
    { rounds: data.roundIds.length, textDimension: data.text.dimension, imageDimension: data.image?.dimension ?? null, words: data.words?.table ?? null, nonce },
    sections,
  );
}

function bm25Sections(prefix: string, section: Bm25Section) {
  return {
    [`${prefix}.owner`]: section.owner,
    [`${prefix}.tag`]: section.tag,
    [`${prefix}.lengths`]: section.lengths,
    [`${prefix}.terms`]: section.terms.units,
    [`${prefix}.termEnds`]: section.terms.ends,
    [`${prefix}.minLength`]: section.minLength,
    [`${prefix}.starts`]: section.starts,
    [`${prefix}.postings`]: section.postings,
  };
}

function vectorSections(prefix: string, section: VectorSection) {
  return {
    [`${prefix}.values`]: section.values,
    [`${prefix}.scales`]: section.scales,
    [`${prefix}.owner`]: section.owner,
    [`${prefix}.kind`]: section.kind,
    [`${prefix}.role`]: section.role,
    [`${prefix}.image`]: section.image,
  };
}

/**
 * Reads a segment's bytes. The arrays view `bytes` where they can (copy what you keep if `bytes`
 * should be freed); throws `SegmentDamage` for anything inconsistent, so damaged bytes never index.
 */
export function decodeSegmentData(bytes: Uint8Array): SegmentData {
  const sections = decodeSegment(bytes);
  if (sections.kind !== KIND) throw new SegmentDamage(`a segment of kind ${sections.kind}`);
  const roundIds = decodeStrings({ units: sections.get('round.ids', 'u16'), ends: sections.get('round.ends', 'u32') });
  const images = decodeStrings({ units: sections.get('image.ids', 'u16'), ends: sections.get('image.ends', 'u32') });
  const meta = sections.meta as { textDimension?: unknown; imageDimension?: unknown; words?: unknown };
  const textDimension = Number(meta.textDimension);
  const imageDimension = meta.imageDimension === null ? undefined : Number(meta.imageDimension);
  const data: SegmentData = {
    roundIds,
    images,
    rounds: readBm25(sections, 'bm25.rounds'),
    captions: readBm25(sections, 'bm25.captions'),
    ...(typeof meta.words === 'string' && sections.has('words.rows')
      ? {
          words: {
            table: meta.words,
            section: { members: sections.get('words.members', 'u32'), rows: sections.get('words.rows', 'u32'), starts: sections.get('words.starts', 'u32'), holders: sections.get('words.holders', 'u32') },
          },
        }
      : {}),
    text: readVectors(sections, 'vectors.text', textDimension),
    ...(imageDimension !== undefined ? { image: readVectors(sections, 'vectors.image', imageDimension) } : {}),
  };
  checkConsistent(data);
  return data;
}

function readBm25(sections: SegmentSections, prefix: string): Bm25Section {
  return {
    owner: sections.get(`${prefix}.owner`, 'u32'),
    tag: sections.get(`${prefix}.tag`, 'i32'),
    lengths: sections.get(`${prefix}.lengths`, 'u32'),
    terms: { units: sections.get(`${prefix}.terms`, 'u16'), ends: sections.get(`${prefix}.termEnds`, 'u32') },
    minLength: sections.get(`${prefix}.minLength`, 'u32'),
    starts: sections.get(`${prefix}.starts`, 'u32'),
    postings: sections.get(`${prefix}.postings`, 'u32'),
  };
}

function readVectors(sections: SegmentSections, prefix: string, dimension: number): VectorSection {
  if (!Number.isInteger(dimension) || dimension <= 0) throw new SegmentDamage(`a lane of ${dimension} dimensions`);
  return {
    dimension,
    values: sections.get(`${prefix}.values`, 'i8'),
    scales: sections.get(`${prefix}.scales`, 'f32'),
    owner: sections.get(`${prefix}.owner`, 'u32'),
    kind: sections.get(`${prefix}.kind`, 'u8'),
    role: sections.get(`${prefix}.role`, 'u8'),
    image: sections.get(`${prefix}.image`, 'i32'),
  };
}

/**
 * The structure is whole: array lengths agree, documents and rows point at rounds the segment holds,
 * rows come round by round. The checksum already caught damage; this catches a segment that our
 * own writer got wrong, in O(documents + rows) (postings are not walked: that would be most of an open).
 */
function checkConsistent(data: SegmentData): void {
  const rounds = data.roundIds.length;
  const images = data.images.length;
  const fail = (what: string) => {
    throw new SegmentDamage(what);
  };
  for (const [name, section] of [['rounds', data.rounds], ['captions', data.captions]] as const) {
    const docs = section.owner.length;
    const terms = section.terms.ends.length;
    if (section.tag.length !== docs || section.lengths.length !== docs) fail(`bm25 ${name}: document arrays differ in length`);
    if (section.minLength.length !== terms || section.starts.length !== terms + 1 || section.starts[terms] !== section.postings.length) fail(`bm25 ${name}: term arrays differ in length`);
    if (terms > 0 && section.terms.ends[terms - 1] !== section.terms.units.length) fail(`bm25 ${name}: term table`);
    if (!ascending(section.starts)) fail(`bm25 ${name}: postings out of order`);
    if (maxU32(section.owner) >= rounds || !tagsIn(section.tag, images)) fail(`bm25 ${name}: a reference out of range`);
  }
  if (data.words) {
    const { members, rows, starts, holders } = data.words.section;
    if (starts.length !== rows.length + 1 || starts[rows.length] !== holders.length || !ascending(starts)) fail('words: arrays differ in length');
    if (maxU32(members) >= rounds) fail('words: a round out of range');
  }
  for (const section of [data.text, data.image]) {
    if (!section) continue;
    const rows = section.owner.length;
    if (section.values.length !== rows * section.dimension || section.scales.length !== rows || section.kind.length !== rows || section.role.length !== rows || section.image.length !== rows) {
      fail('vectors: arrays differ in length');
    }
    if (maxU32(section.owner) >= rounds || maxU8(section.kind) >= UNIT_KINDS.length || maxU8(section.role) >= ROLES.length || !tagsIn(section.image, images)) fail('vectors: a reference out of range');
    // Rows come round by round (what keeps a round's rows next to each other in memory), at most 255 a round.
    if (!ascending(section.owner) || longestRun(section.owner) > 255) fail('vectors: rows out of round order');
  }
}

// One loop per array type: a loop shared by several typed-array types runs far slower.
function maxU32(array: Uint32Array): number {
  let max = -1;
  for (let i = 0; i < array.length; i++) if (array[i]! > max) max = array[i]!;
  return max;
}

function maxU8(array: Uint8Array): number {
  let max = -1;
  for (let i = 0; i < array.length; i++) if (array[i]! > max) max = array[i]!;
  return max;
}

/** Every tag is -1 or an index below `limit`. */
function tagsIn(array: Int32Array, limit: number): boolean {
  for (let i = 0; i < array.length; i++) if (array[i]! < -1 || array[i]! >= limit) return false;
  return true;
}

function ascending(array: Uint32Array): boolean {
  for (let i = 1; i < array.length; i++) if (array[i]! < array[i - 1]!) return false;
  return true;
}

function longestRun(array: Uint32Array): number {
  let longest = 0;
  for (let start = 0, i = 1; i <= array.length; i++) {
    if (i < array.length && array[i] === array[start]) continue;
    longest = Math.max(longest, i - start);
    start = i;
  }
  return longest;
}
