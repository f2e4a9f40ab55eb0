/** Turning a detector's raw rows into detections: pure geometry, no model. */
import { COCO_LABELS } from './coco.js';
import type { Box, Detection } from './types.js';

/**
 * How an image was fitted into the model's square input: scaled by `scale` (same on both axes, so
 * shapes keep their proportions) and shifted by `offsetX`, `offsetY` (the padding bars).
 */
export interface Letterbox {
  readonly scale: number;
  readonly offsetX: number;
  readonly offsetY: number;
  /** The fitted image's size inside the input. */
  readonly width: number;
  readonly height: number;
}

/** The letterbox that fits a `width × height` image centred into a `size × size` input. */
export function letterbox(width: number, height: number, size: number): Letterbox {
  const scale = size / Math.max(width, height);
  const fittedWidth = Math.max(1, Math.round(width * scale));
  const fittedHeight = Math.max(1, Math.round(height * scale));
  return { scale, offsetX: Math.floor((size - fittedWidth) / 2), offsetY: Math.floor((size - fittedHeight) / 2), width: fittedWidth, height: fittedHeight };
}

/**
 * Detections from rows of `[x1, y1, x2, y2, score, classIndex]` in input pixels (CenterNet's
 * `detections` output), mapped back to the original image and clipped to it. Rows under `minScore`,
 * boxes that fall in the padding, and unknown classes are dropped.
 */
export function detectionsFromRows(
  rows: readonly (readonly number[])[],
  fit: Letterbox,
  image: { readonly width: number; readonly height: number },
  minScore: number,
): Detection[] {
  const out: Detection[] = [];
  for (const row of rows) {
    const [x1, y1, x2, y2, score, classIndex] = row as [number, number, number, number, number, number];
    const label = COCO_LABELS[Math.round(classIndex)];
    if (score < minScore || label === undefined) continue;
    const left = clamp((x1 - fit.offsetX) / fit.scale, 0, image.width);
    const top = clamp((y1 - fit.offsetY) / fit.scale, 0, image.height);
    const right = clamp((x2 - fit.offsetX) / fit.scale, 0, image.width);
    const bottom = clamp((y2 - fit.offsetY) / fit.scale, 0, image.height);
    if (right - left < 1 || bottom - top < 1) continue;
    out.push({ label, score, box: { x: left, y: top, width: right - left, height: bottom - top } });
  }
  return out.sort((a, b) => b.score - a.score);
}

/** Intersection over union of two boxes. */
export function overlap(a: Box, b: Box): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (width <= 0 || height <= 0) return 0;
  const shared = width * height;
  return shared / (a.width * a.height + b.width * b.height - shared);
}

/**
 * Keeps the best of each set of same-class detections that overlap by more than `maxOverlap`
 * (greedy non-maximum suppression), so one motorcycle is counted once. Input best first.
 */
export function suppressDuplicates(detections: readonly Detection[], maxOverlap: number): Detection[] {
  const kept: Detection[] = [];
  for (const candidate of detections) {
    if (!kept.some((other) => other.label === candidate.label && overlap(other.box, candidate.box) > maxOverlap)) kept.push(candidate);
  }
  return kept;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
