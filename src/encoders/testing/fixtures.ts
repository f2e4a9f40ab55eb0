import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Test-only: the shared fixture photos (`../shared/fixtures/photos` from the repo root), never copied into the repo. */
export const FIXTURE_PHOTOS_DIR = fileURLToPath(new URL('../../../../shared/fixtures/photos/', import.meta.url));

/** Names of all fixture photos, sorted. */
export function fixturePhotoNames(): string[] {
  return readdirSync(FIXTURE_PHOTOS_DIR)
    .filter((name) => name.endsWith('.jpg'))
    .sort();
}

/** Bytes of one fixture photo. */
export function readFixturePhoto(name: string): Uint8Array {
  return new Uint8Array(readFileSync(FIXTURE_PHOTOS_DIR + name));
}
