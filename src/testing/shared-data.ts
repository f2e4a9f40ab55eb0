import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Test-only: the `shared/` folder beside the repository root (benchmark data and fixture photos).
 * It is read in place, never copied into the repository.
 */
export const SHARED_DIR = fileURLToPath(new URL('../../../shared/', import.meta.url));

/** The fixture photos (`shared/fixtures/photos/`), with a trailing slash. */
export const FIXTURE_PHOTOS_DIR = `${SHARED_DIR}fixtures/photos/`;

/** The benchmark data (`shared/bench/`), with a trailing slash. */
export const BENCH_DATA_DIR = `${SHARED_DIR}bench/`;

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
