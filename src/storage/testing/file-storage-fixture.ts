/** Test-only: deterministic rounds for the file store's tests, so a reader can tell a whole round from a damaged one. */
import type { RoundInput } from 'vmem';
import { fixturePhotoNames, readFixturePhoto } from '../../testing/shared-data.js';

const PHOTOS = fixturePhotoNames();
const START = Date.UTC(2025, 0, 1);

/** The photo round `index` carries (when it carries one). */
export function fixturePhotoOf(index: number): { name: string; bytes: Uint8Array } {
  const name = PHOTOS[index % PHOTOS.length]!;
  return { name, bytes: readFixturePhoto(name) };
}

/** Rounds `first`…`first + count - 1`: a user text, an assistant text, and with `photos` one picture with a caption. */
export function fixtureRounds(first: number, count: number, photos: boolean): RoundInput[] {
  return Array.from({ length: count }, (_, offset) => {
    const index = first + offset;
    return {
      id: `r${index}`,
      sessionId: `s${Math.floor(index / 50)}`,
      timestamp: START + index * 60_000,
      user: {
        text: `Round ${index}: I noted item number ${index} about topic ${index % 17}.`,
        ...(photos ? { images: [{ id: `img${index}`, bytes: fixturePhotoOf(index).bytes, mimeType: 'image/jpeg', caption: `photo number ${index}` }] } : {}),
      },
      assistant: { text: `Reply ${index}: noted.` },
    };
  });
}
