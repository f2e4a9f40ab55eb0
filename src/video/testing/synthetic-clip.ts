/**
 * A synthetic video for Node tests: a timeline of fixture photos, each shown for a stretch, with a
 * little deterministic noise on every sampled thumbnail as video compression would add.
 */
import type { RgbaImage } from '../../encoders/types.js';
import type { FrameSource } from '../clip.js';
import { grayThumbnail, type GrayImage } from '../gray.js';

/** One stretch of the clip: a photo shown from `from` to `to` seconds. */
export interface Stretch {
  readonly from: number;
  readonly to: number;
  /** A name for assertions, e.g. the file name. */
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly pixels: RgbaImage;
}

/** A frame source over `stretches`; `shownAt(time)` says which photo a time shows. */
export function syntheticClip(stretches: readonly Stretch[], noise = 3): FrameSource & { shownAt(time: number): string } {
  const duration = stretches[stretches.length - 1]!.to;
  const thumbs = new Map<string, GrayImage>();
  const stretchAt = (time: number) => stretches.find((stretch) => time >= stretch.from && time < stretch.to) ?? stretches[stretches.length - 1]!;
  return {
    duration,
    shownAt: (time) => stretchAt(time).name,
    async thumbnail(time) {
      const stretch = stretchAt(time);
      let clean = thumbs.get(stretch.name);
      if (!clean) {
        clean = grayThumbnail(stretch.pixels);
        thumbs.set(stretch.name, clean);
      }
      // Seeded by the time, so the same call gives the same frame.
      let seed = Math.round(time * 1000) + 1;
      const data = Uint8Array.from(clean.data, (value) => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return Math.max(0, Math.min(255, value + ((seed >>> 16) % (2 * noise + 1)) - noise));
      });
      return { width: clean.width, height: clean.height, data };
    },
    async capture(time) {
      return { bytes: stretchAt(time).bytes, mimeType: 'image/jpeg' };
    },
  };
}
