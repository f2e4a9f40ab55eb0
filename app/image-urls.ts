/** Object URLs for stored images, made once per image and revoked when the memory changes. */
import type { StoredImage } from 'vmem';

/** Caches object URLs of stored images. */
export interface ImageUrls {
  /** An object URL for the image, or undefined when its bytes are not stored (caption-only). */
  urlOf(imageId: string): Promise<string | undefined>;
  /** Revokes every URL made so far (call when switching memories). */
  reset(): void;
}

/** Binds the cache to a loader, e.g. `(id) => memory.getImage(id)`. */
export function createImageUrls(load: (imageId: string) => Promise<StoredImage | undefined>): ImageUrls {
  const urls = new Map<string, Promise<string | undefined>>();
  return {
    urlOf(imageId) {
      let url = urls.get(imageId);
      if (!url) {
        url = load(imageId).then((image) =>
          image ? URL.createObjectURL(new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.mimeType })) : undefined,
        );
        // A failed read is not cached, so the next render tries again.
        url.catch(() => urls.delete(imageId));
        urls.set(imageId, url);
      }
      return url;
    },
    reset() {
      for (const url of urls.values()) void url.then((value) => value && URL.revokeObjectURL(value), () => undefined);
      urls.clear();
    },
  };
}
