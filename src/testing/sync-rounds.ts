/**
 * The rounds the sync benchmarks replicate (bench/sync.ts in Node, bench:browser's `sync` group in
 * Chromium): short texts, and every (rounds / photos)-th round with a photo of its own (the fixture
 * photo with four bytes after its end marker, so no two share an attachment).
 */
import type { RoundInput } from '../types.js';

/** Every how many rounds one carries a photo. */
function photoSpacing(rounds: number, photos: number): number {
  return Math.max(1, Math.floor(rounds / Math.max(1, photos)));
}

export function syncBenchRounds(rounds: number, photos: number, photo: Uint8Array): RoundInput[] {
  const every = photoSpacing(rounds, photos);
  const distinctPhoto = (i: number) => {
    const bytes = new Uint8Array(photo.length + 4);
    bytes.set(photo);
    new DataView(bytes.buffer).setUint32(photo.length, i);
    return bytes;
  };
  return Array.from({ length: rounds }, (_, i) => ({
    id: `round-${i}`,
    sessionId: `session-${Math.floor(i / 20)}`,
    timestamp: 1_700_000_000_000 + i * 60_000,
    user: { text: `question ${i} about topic${i % 97} and thing${i % 13}`, ...(i % every === 0 && i / every < photos ? { images: [{ bytes: distinctPhoto(i), mimeType: 'image/jpeg' }] } : {}) },
    assistant: { text: `answer ${i} mentioning item${i % 31}` },
  }));
}

/** How many of `syncBenchRounds(rounds, photos, …)` carry a photo. */
export function syncBenchPhotoCount(rounds: number, photos: number): number {
  return Math.min(photos, Math.ceil(rounds / photoSpacing(rounds, photos)));
}
