/**
 * Machine-derived picture descriptions in the memory: which pictures still need one, what one looks
 * like once made, and the round that carries it. Pure; the memory runs the describer and stores.
 */
import { derivedText, labelledDescription } from '../describe/description.js';
import type { ImageDescriber, ImageDescription } from '../describe/types.js';
import type { StoredImage } from '../storage/types.js';
import type { DerivedDescription, StoredRound } from '../types.js';
import type { PreparedRound } from './ingest.js';

/** `DerivedDescription.by` once the vision-LLM description job has replaced the offline one. */
export const VISION_LLM_DESCRIBER = 'vision-llm';

/** How `add` treats pictures when the memory has a describer. */
export type DescribeMode = 'wait' | 'background';

/** What a run of the description job did. */
export interface DescribeRun {
  /** Pictures described in this run. */
  readonly described: number;
  /** Pictures whose file could not be read or decoded; they are marked described (with nothing seen) and not retried. */
  readonly unreadable: number;
}

/** The stored form of what a describer saw. */
export function derivedDescription(description: ImageDescription, describerId: string): DerivedDescription {
  return { by: describerId, text: derivedText(description), labelled: labelledDescription(description) };
}

/** A description with nothing in it: marks a picture as handled without indexing anything. */
export function emptyDescription(by: string): DerivedDescription {
  return { by, text: '', labelled: '' };
}

/** The round with one image's derived description set (or replaced). */
export function withDerived(round: StoredRound, imageId: string, derived: DerivedDescription): StoredRound {
  const update = (turn: StoredRound['user']): StoredRound['user'] =>
    turn.images.some((image) => image.id === imageId)
      ? { ...turn, images: turn.images.map((image) => (image.id === imageId ? { ...image, derived } : image)) }
      : turn;
  return { ...round, user: update(round.user), assistant: update(round.assistant) };
}

/**
 * Describes the pictures of rounds about to be added (those with bytes), one at a time so progress
 * moves, and returns the rounds carrying their descriptions. Rejects like the describer does
 * (`IMAGE_DECODE_FAILED` for a file it cannot read), so a bad picture stops the `add` before
 * anything is stored.
 */
export async function describePrepared(
  prepared: readonly PreparedRound[],
  describer: ImageDescriber,
  onPicture: (done: number, total: number) => void,
): Promise<PreparedRound[]> {
  const total = prepared.reduce((sum, item) => sum + item.images.length, 0);
  let done = 0;
  const out: PreparedRound[] = [];
  for (const item of prepared) {
    let round = item.round;
    for (const image of item.images) {
      round = withDerived(round, image.id, await describeStored(describer, image));
      onPicture(++done, total);
    }
    out.push({ round, images: item.images });
  }
  return out;
}

/** One stored picture's description. */
export async function describeStored(describer: ImageDescriber, image: StoredImage): Promise<DerivedDescription> {
  const [description] = await describer.describe([{ bytes: image.bytes, mimeType: image.mimeType }]);
  return derivedDescription(description!, describer.id);
}
