import type { RgbaImage } from './types.js';

/**
 * How a non-square image becomes the model's square input:
 * `crop` keeps the centre square, `pad` fits the whole image and fills the bars with grey,
 * `squash` stretches the whole image.
 */
export type ImageFit = 'crop' | 'pad' | 'squash';

/** Grey of the bars under `pad` (mid-range, so bars carry no edges of their own). */
const PAD_VALUE = 0.5;

/**
 * Resamples RGBA pixels to a `size × size` RGB tensor in [0, 1] (row-major HWC, alpha dropped).
 * Shrinking averages every source pixel under the output pixel (area filter, no aliasing);
 * enlarging interpolates bilinearly.
 * @example toModelInput(decoded, 224, 'squash') // Float32Array(224 * 224 * 3)
 */
export function toModelInput(image: RgbaImage, size: number, fit: ImageFit): Float32Array {
  const { width, height } = image;
  let source = { x: 0, y: 0, width, height };
  let target = { x: 0, y: 0, width: size, height: size };
  if (fit === 'crop') {
    const side = Math.min(width, height);
    source = { x: (width - side) / 2, y: (height - side) / 2, width: side, height: side };
  } else if (fit === 'pad') {
    const scale = size / Math.max(width, height);
    const w = Math.max(1, Math.round(width * scale));
    const h = Math.max(1, Math.round(height * scale));
    target = { x: Math.floor((size - w) / 2), y: Math.floor((size - h) / 2), width: w, height: h };
  }
  const columns = resampleTaps(source.x, source.width, target.width, width);
  const rows = resampleTaps(source.y, source.height, target.height, height);

  // Pass 1: each source row → target.width RGB values. Pass 2: columns of that → target rows.
  const sourceRows = new Set(rows.flatMap((taps) => taps.map((tap) => tap.index)));
  const horizontal = new Map<number, Float32Array>();
  for (const y of sourceRows) {
    const line = new Float32Array(target.width * 3);
    const rowStart = y * width * 4;
    columns.forEach((taps, x) => {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const { index, weight } of taps) {
        const p = rowStart + index * 4;
        r += image.data[p]! * weight;
        g += image.data[p + 1]! * weight;
        b += image.data[p + 2]! * weight;
      }
      line[x * 3] = r;
      line[x * 3 + 1] = g;
      line[x * 3 + 2] = b;
    });
    horizontal.set(y, line);
  }

  const out = new Float32Array(size * size * 3).fill(PAD_VALUE);
  rows.forEach((taps, ty) => {
    const outRow = ((target.y + ty) * size + target.x) * 3;
    for (let i = 0; i < target.width * 3; i++) {
      let sum = 0;
      for (const { index, weight } of taps) sum += horizontal.get(index)![i]! * weight;
      out[outRow + i] = sum / 255;
    }
  });
  return out;
}

interface Tap {
  readonly index: number;
  readonly weight: number;
}

/**
 * For each of `outLength` output pixels, the source pixels (within [0, limit)) and weights that make it,
 * mapping the source span [start, start + length) onto the output. Weights of a pixel sum to 1.
 */
export function resampleTaps(start: number, length: number, outLength: number, limit: number): Tap[][] {
  const scale = length / outLength;
  const taps: Tap[][] = [];
  for (let o = 0; o < outLength; o++) {
    const pixel: Tap[] = [];
    if (scale > 1) {
      // Area filter: overlap of the output pixel's footprint with each source pixel.
      const from = start + o * scale;
      const to = from + scale;
      for (let s = Math.floor(from); s < Math.ceil(to); s++) {
        const overlap = Math.min(to, s + 1) - Math.max(from, s);
        if (overlap > 0) pixel.push({ index: clamp(s, limit), weight: overlap / scale });
      }
    } else {
      // Bilinear between the two nearest source pixel centres.
      const centre = start + (o + 0.5) * scale - 0.5;
      const left = Math.floor(centre);
      const t = centre - left;
      pixel.push({ index: clamp(left, limit), weight: 1 - t });
      if (t > 0) pixel.push({ index: clamp(left + 1, limit), weight: t });
    }
    taps.push(pixel);
  }
  return taps;
}

function clamp(index: number, limit: number): number {
  return index < 0 ? 0 : index >= limit ? limit - 1 : index;
}
