/**
 * Encodes each distinct image of a call once. A photo that appears in several rounds of one batch
 * (forwarded, re-sent, pasted again) then costs one model run instead of one per round; the vectors
 * are the same, since the image model's output for an image does not depend on its batch neighbours.
 */
import type { ImagePayload } from '../encoders/types.js';

/** Identity of an image's content: SHA-256 of its bytes where the platform has it, else the array itself. */
async function keyOf(image: ImagePayload): Promise<unknown> {
  if (!image.bytes) return `caption:${image.caption ?? ''}`;
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return image.bytes;
  const digest = new Uint8Array(await subtle.digest('SHA-256', image.bytes as Uint8Array<ArrayBuffer>));
  return `${image.mimeType ?? ''}:${image.bytes.byteLength}:${Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Calls `embed` with the distinct images only and returns one vector per input, in input order.
 * Repeats get their own copy, so a caller that normalises in place cannot touch another round's vector.
 * @example const vectors = await embedDistinct(images, (unique) => remote.embedImages(unique));
 */
export async function embedDistinct(images: readonly ImagePayload[], embed: (unique: ImagePayload[]) => Promise<Float32Array[]>): Promise<Float32Array[]> {
  const keys = await Promise.all(images.map(keyOf));
  const slotOf = new Map<unknown, number>();
  const unique: ImagePayload[] = [];
  const slots = keys.map((key, index) => {
    let slot = slotOf.get(key);
    if (slot === undefined) {
      slot = unique.push(images[index]!) - 1;
      slotOf.set(key, slot);
    }
    return slot;
  });
  if (unique.length === images.length) return embed(unique);
  const vectors = await embed(unique);
  const used = new Set<number>();
  return slots.map((slot) => {
    const vector = vectors[slot];
    if (vector === undefined) return vector as unknown as Float32Array;
    if (used.has(slot)) return vector.slice();
    used.add(slot);
    return vector;
  });
}
