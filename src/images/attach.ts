/** Which retrieved pictures go to a vision model, in what order, and their downscaled data URLs. */
import { errorCode, VmemError, type VmemErrorCode } from '../errors.js';
import type { LlmImage } from '../llm/types.js';
import type { StoredImage } from '../storage/types.js';
import type { ImageRef, RetrievalResult, StoredRound } from '../types.js';
import { imagesOf } from '../types.js';
import { pictureDataUrl } from './picture-url.js';
import { LLM_IMAGE_MAX_SIDE, LLM_IMAGE_QUALITY, type ImageResizer } from './types.js';

/** A retrieved picture that was not attached, and why. */
export interface SkippedImage {
  readonly imageId: string;
  /** `no-bytes`: caption-only image; `missing`: its bytes are gone from storage; otherwise the decode error's code. */
  readonly reason: 'no-bytes' | 'missing' | VmemErrorCode;
}

/** A picture ready to attach. */
export interface PreparedImage {
  readonly ref: ImageRef;
  readonly image: LlmImage;
  readonly width: number;
  readonly height: number;
}

/** Options of `prepareImages`. */
export interface PrepareImagesOptions {
  readonly getImage: (imageId: string) => Promise<StoredImage | undefined>;
  readonly resizer: ImageResizer;
  /** Most pictures prepared. */
  readonly max: number;
  /** Longest side after downscaling. @default 768 */
  readonly maxSide?: number;
  /** JPEG quality, 1–100. @default 80 */
  readonly quality?: number;
  readonly signal?: AbortSignal;
}

/**
 * The pictures worth showing for a retrieval, best first, without duplicates:
 * for an image target, the top image matches (`retrieval.images`) first; then the images of the hit
 * rounds by rank; then the remaining top image matches; then the images of neighbour rounds.
 * Caption-only images are included (the caller skips them).
 */
export function orderAttachCandidates(retrieval: RetrievalResult): ImageRef[] {
  const roundById = new Map<string, StoredRound>();
  for (const block of retrieval.blocks) for (const round of block.rounds) roundById.set(round.id, round);
  const hits = retrieval.trace.filter((entry) => !entry.neighbour).sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity));
  const neighbours = retrieval.trace.filter((entry) => entry.neighbour);
  const imagesOfRound = (roundId: string): ImageRef[] => {
    const round = roundById.get(roundId);
    return round ? imagesOf(round) : [];
  };
  const ordered = [
    ...(retrieval.route.target === 'image' ? retrieval.images : []),
    ...hits.flatMap((entry) => imagesOfRound(entry.roundId)),
    ...retrieval.images,
    ...neighbours.flatMap((entry) => imagesOfRound(entry.roundId)),
  ];
  const seen = new Set<string>();
  return ordered.filter((ref) => !seen.has(ref.id) && seen.add(ref.id));
}

/**
 * Downscales up to `max` of the candidates, in order, to JPEG data URLs at `detail: 'low'`.
 * Caption-only images, images missing from storage and images that fail to decode are skipped and
 * reported, so one bad file never costs the answer.
 */
export async function prepareImages(candidates: readonly ImageRef[], options: PrepareImagesOptions): Promise<{ prepared: PreparedImage[]; skipped: SkippedImage[] }> {
  const maxSide = options.maxSide === undefined ? LLM_IMAGE_MAX_SIDE : options.maxSide;
  const quality = options.quality === undefined ? LLM_IMAGE_QUALITY : options.quality;
  const prepared: PreparedImage[] = [];
  const skipped: SkippedImage[] = [];
  for (const ref of candidates) {
    if (prepared.length >= options.max) break;
    options.signal?.throwIfAborted();
    if (!ref.hasBytes) {
      skipped.push({ imageId: ref.id, reason: 'no-bytes' });
      continue;
    }
    try {
      const stored = await options.getImage(ref.id);
      if (!stored) {
        skipped.push({ imageId: ref.id, reason: 'missing' });
        continue;
      }
      const small = await options.resizer(stored.bytes, stored.mimeType, maxSide, quality);
      prepared.push({ ref, image: { url: pictureDataUrl(small.bytes, small.mimeType, `image "${ref.id}", downscaled`), detail: 'low' }, width: small.width, height: small.height });
    } catch (error) {
      const code = errorCode(error);
      // A file that will not decode, or is no picture at all, is that image's problem; anything else (a bug, bad options) is ours.
      if (code !== 'IMAGE_DECODE_FAILED' && code !== 'UNSUPPORTED_FILE') throw error;
      skipped.push({ imageId: ref.id, reason: code });
    }
  }
  return { prepared, skipped };
}

/** Rejects a `maxImages` that is not a whole number ≥ 0. */
export function assertMaxImages(maxImages: number): void {
  if (!Number.isInteger(maxImages) || maxImages < 0) {
    throw new VmemError('INVALID_INPUT', `maxImages must be a whole number ≥ 0, got ${String(maxImages)}.`);
  }
}
