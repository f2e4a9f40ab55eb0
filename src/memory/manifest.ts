import type { ImageDescriber } from '../describe/types.js';
import type { ImageEmbedder, TextEmbedder } from '../encoders/types.js';
import { SCHEMA_VERSION, type Manifest } from '../storage/types.js';
import type { EncoderIds } from '../types.js';

/** The ids a memory's manifest records for its encoders (and its describer, when it has one). */
export function encoderIdsOf(text: TextEmbedder, image: ImageEmbedder | undefined, describer?: ImageDescriber): EncoderIds {
  return {
    text: { id: text.id, dimension: text.dimension },
    ...(image ? { image: { id: image.id, dimension: image.dimension } } : {}),
    ...(describer ? { describer: { id: describer.id } } : {}),
  };
}

/** Same vectors: text and image encoders match. The describer is left out, as a new one only re-describes pictures. */
export function sameEncoders(a: EncoderIds, b: EncoderIds): boolean {
  return (
    a.text.id === b.text.id &&
    a.text.dimension === b.text.dimension &&
    a.image?.id === b.image?.id &&
    a.image?.dimension === b.image?.dimension
  );
}

/** The encoders in words, for error messages. */
export function describeEncoders(ids: EncoderIds): string {
  return `text encoder "${ids.text.id}" (${ids.text.dimension}-d)` + (ids.image ? ` and image encoder "${ids.image.id}" (${ids.image.dimension}-d)` : ' and no image encoder');
}

export function newManifest(encoders: EncoderIds): Manifest {
  return { schemaVersion: SCHEMA_VERSION, encoders, createdAt: Date.now() };
}
