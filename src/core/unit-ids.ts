import type { Role } from '../types.js';

/*
 * The one place unit ids are made and read. A unit id names what the unit indexes: a turn's text
 * (`<roundId>#user`), an image's caption (`<imageId>#caption`), its machine-derived description
 * (`<imageId>#derived`) or its pixels (`<imageId>#image`).
 * Stored memories hold these ids, so the format never changes without a storage migration.
 */

export function textUnitId(roundId: string, role: Role): string {
  return `${roundId}#${role}`;
}

export function captionUnitId(imageId: string): string {
  return `${imageId}#caption`;
}

export function derivedUnitId(imageId: string): string {
  return `${imageId}#derived`;
}

export function imageUnitId(imageId: string): string {
  return `${imageId}#image`;
}
