import type { ImageEmbedder, ImagePayload, TextEmbedder } from '../encoders/types.js';
import { VmemError } from '../errors.js';
import { normalize } from '../lanes/vector-matrix.js';
import type { ProgressCallback } from '../progress.js';
import type { RoundRecord, StoredImage } from '../storage/types.js';
import { imagesOf, type StoredRound, type StoredUnit } from '../types.js';
import { unitSpecsOf, type UnitSpec } from './ingest.js';

/** The encoders a memory embeds its units with. */
export interface UnitEncoders {
  readonly text: TextEmbedder;
  readonly image: ImageEmbedder | undefined;
}

/** A round to encode, with the bytes of its images. */
export interface RoundToEncode {
  readonly round: StoredRound;
  readonly images: readonly StoredImage[];
}

/**
 * Rounds per encoder call: progress moves every few rounds and memory stays bounded on long adds.
 * Batches of 8 and 32 encode at the same rate (docs/architecture.md, decision table).
 */
const ROUNDS_PER_SLICE = 8;

/**
 * Encodes rounds into the records storage writes, in slices. Nothing is stored here, so a failure
 * leaves the memory as it was.
 */
export async function encodeRecords(
  items: readonly RoundToEncode[],
  encoders: UnitEncoders,
  task: 'ingest' | 'reindex',
  onProgress: ProgressCallback | undefined,
): Promise<RoundRecord[]> {
  onProgress?.({ status: 'initiate', task });
  const records: RoundRecord[] = [];
  for (let start = 0; start < items.length; start += ROUNDS_PER_SLICE) {
    const part = items.slice(start, start + ROUNDS_PER_SLICE);
    const unitsOf = groupBy(await encodeUnits(part.flatMap((item) => unitSpecsOf(item.round)), part, encoders), (unit) => unit.roundId);
    for (const item of part) records.push({ round: item.round, units: unitsOf.get(item.round.id) ?? [], images: item.images });
    onProgress?.({ status: 'progress', task, loaded: Math.min(start + ROUNDS_PER_SLICE, items.length), total: items.length, unit: 'rounds' });
  }
  return records;
}

/**
 * Embeds the given unit specs of these rounds: text units in one batch, image units in another.
 * Image units whose image has no bytes (and no caption for a caption-only encoder) get no unit.
 */
export async function encodeUnits(specs: readonly UnitSpec[], items: readonly RoundToEncode[], encoders: UnitEncoders): Promise<StoredUnit[]> {
  const bytesOf = new Map(items.flatMap((item) => item.images.map((image) => [image.id, image] as const)));
  const captionOf = new Map(items.flatMap((item) => imagesOf(item.round).map((ref) => [ref.id, ref.caption] as const)));
  const imageEncoder = encoders.image;

  const textSpecs = specs.filter((spec) => spec.kind !== 'image');
  const imageSpecs = imageEncoder
    ? specs.filter((spec) => spec.kind === 'image' && (bytesOf.has(spec.imageId!) || (imageEncoder.captionOnly && captionOf.get(spec.imageId!))))
    : [];
  const [textVectors, imageVectors] = await Promise.all([
    textSpecs.length ? encoders.text.embed(textSpecs.map((spec) => spec.text!)) : Promise.resolve([]),
    imageSpecs.length
      ? imageEncoder!.embed(
          imageSpecs.map((spec): ImagePayload => {
            const stored = bytesOf.get(spec.imageId!);
            const caption = captionOf.get(spec.imageId!);
            return { ...(stored ? { bytes: stored.bytes, mimeType: stored.mimeType } : {}), ...(caption ? { caption } : {}) };
          }),
        )
      : Promise.resolve([]),
  ]);
  const toUnit = (spec: UnitSpec, vector: Float32Array | undefined, lane: 'text' | 'image'): StoredUnit => {
    if (!vector) throw new VmemError('MODEL_LOAD_FAILED', `The ${lane} encoder returned fewer vectors than inputs.`);
    const { id, roundId, kind, role, text, imageId } = spec;
    return { id, roundId, lane, kind, role, ...(text !== undefined ? { text } : {}), ...(imageId ? { imageId } : {}), vector: normalize(vector) };
  };
  return [
    ...textSpecs.map((spec, index) => toUnit(spec, textVectors[index], 'text')),
    ...imageSpecs.map((spec, index) => toUnit(spec, imageVectors[index], 'image')),
  ];
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key) ?? [];
    group.push(item);
    groups.set(key, group);
  }
  return groups;
}
