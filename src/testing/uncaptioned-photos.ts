import type { RoundInput } from '../types.js';
import { locomoTextRounds } from './locomo-rounds.js';
import { renderDialog } from './render-text.js';
import { readFixturePhoto } from './shared-data.js';

/**
 * Test-only: the describer's retrieval scenario. Fixture photos shared without captions under the
 * same neutral turn, and a rendered error dialog, after a LoCoMo conversation's ordinary rounds.
 * Used by the memory test and by `npm run bench:describe -- --retrieval`.
 */

/** The neutral text every photo round carries. */
export const NEUTRAL_TURN = 'Look what I saw today!';

/** Photo name → fixture file. The last four hold no COCO object, so each question has rivals. */
export const UNCAPTIONED_PHOTOS = {
  cat: 'sk_chelsea.jpg',
  motorcycle: 'sk_motorcycle_left.jpg',
  coffee: 'sk_coffee.jpg',
  person: 'sk_astronaut.jpg',
  horse: 'sk_horse.jpg',
  page: 'sk_page.jpg',
  meadow: 'mate_GreenMeadow.jpg',
  storm: 'mate_Storm.jpg',
  rocket: 'sk_rocket.jpg',
  gravel: 'sk_gravel.jpg',
} as const;

/** Questions and the photo (round `photo-<name>`, image `img-<name>`) each should find first. */
export const PHOTO_QUESTIONS: readonly (readonly [question: string, photo: string])[] = [
  ['Which photo showed the cat?', 'cat'],
  ['Which photo showed the motorcycle?', 'motorcycle'],
  ['Which photo showed the coffee?', 'coffee'],
  ['Which photo showed the person?', 'person'],
  ['Which photo showed the horse?', 'horse'],
  ['Show me the photo with the red motorcycle', 'motorcycle'],
  ['Which picture had the text about region-based segmentation?', 'page'],
  ['What did the error message say?', 'dialog'],
];

function photoRound(name: string, bytes: Uint8Array, mimeType: string, day: number): RoundInput {
  return {
    id: `photo-${name}`,
    sessionId: 'photos',
    timestamp: Date.UTC(2024, 5, day, 18),
    user: { text: NEUTRAL_TURN, images: [{ id: `img-${name}`, bytes, mimeType }] },
    assistant: { text: 'Nice!' },
  };
}

/** The ordinary rounds, then the photo rounds (the dialog last). */
export async function uncaptionedPhotoScenario(): Promise<{ ordinary: RoundInput[]; photos: RoundInput[] }> {
  const dialog = await renderDialog({ title: 'Error', lines: ['Disk quota exceeded while saving', 'report.docx. Free some space and', 'try again.'] });
  const photos = [
    ...Object.entries(UNCAPTIONED_PHOTOS).map(([name, file], day) => photoRound(name, readFixturePhoto(file), 'image/jpeg', day + 1)),
    photoRound('dialog', dialog, 'image/png', 20),
  ];
  return { ordinary: locomoTextRounds(), photos };
}
