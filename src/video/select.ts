/**
 * Keyframe selection for video clips: pure, so it runs (and is tested) in Node.
 * A clip is cut into segments of T seconds; from each, up to K frames are kept by visual change
 * between consecutive sampled frames, never two near-duplicates, so a static stretch gives one frame.
 */
import { VmemError } from '../errors.js';
import { meanAbsDiff, type GrayImage } from './gray.js';

/** A sampled frame: its time and its grayscale thumbnail. */
export interface FrameSample {
  /** Seconds from the start of the clip. */
  readonly time: number;
  readonly thumb: GrayImage;
}

/** How segments are cut and frames chosen. */
export interface KeyframeOptions {
  /** Segment length T, in seconds. A last segment shorter than T/4 joins the one before. @default 10 */
  readonly segmentSeconds?: number;
  /** Most frames K kept per segment. @default 3 */
  readonly framesPerSegment?: number;
  /**
   * Least mean absolute difference (0–1, on 64×64 grayscale thumbnails) between two kept frames of a
   * segment; closer frames count as near-duplicates. Video compression noise stays near 0.01; two
   * different photos differ by 0.1 or more.
   * @default 0.04
   */
  readonly minChange?: number;
}

/** `KeyframeOptions` with defaults filled in. */
export interface NormalizedKeyframeOptions {
  readonly segmentSeconds: number;
  readonly framesPerSegment: number;
  readonly minChange: number;
}

/** A kept frame. */
export interface ChosenFrame {
  readonly time: number;
  /** Index into the samples given. */
  readonly sampleIndex: number;
  /** Difference from the sample before it in the segment (0–1); 0 for the segment's first frame. */
  readonly change: number;
}

/** One segment and the frames kept from it, in time order. */
export interface SegmentPlan {
  readonly index: number;
  /** Seconds. */
  readonly start: number;
  /** Seconds. */
  readonly end: number;
  readonly frames: readonly ChosenFrame[];
}

/** Default T. */
export const DEFAULT_SEGMENT_SECONDS = 10;
/** Default K. */
export const DEFAULT_FRAMES_PER_SEGMENT = 3;
/** Default near-duplicate threshold. */
export const DEFAULT_MIN_CHANGE = 0.04;

/** Validates options and fills in defaults; bad values reject with `INVALID_INPUT`. */
export function normalizeKeyframeOptions(options: KeyframeOptions = {}): NormalizedKeyframeOptions {
  const segmentSeconds = options.segmentSeconds === undefined ? DEFAULT_SEGMENT_SECONDS : options.segmentSeconds;
  const framesPerSegment = options.framesPerSegment === undefined ? DEFAULT_FRAMES_PER_SEGMENT : options.framesPerSegment;
  const minChange = options.minChange === undefined ? DEFAULT_MIN_CHANGE : options.minChange;
  if (!Number.isFinite(segmentSeconds) || segmentSeconds <= 0) {
    throw new VmemError('INVALID_INPUT', `segmentSeconds must be a positive number of seconds, got ${String(segmentSeconds)}.`);
  }
  if (!Number.isInteger(framesPerSegment) || framesPerSegment < 1) {
    throw new VmemError('INVALID_INPUT', `framesPerSegment must be a whole number ≥ 1, got ${String(framesPerSegment)}.`);
  }
  if (!Number.isFinite(minChange) || minChange < 0 || minChange > 1) {
    throw new VmemError('INVALID_INPUT', `minChange must be between 0 and 1, got ${String(minChange)}.`);
  }
  return { segmentSeconds, framesPerSegment, minChange };
}

/**
 * Cuts `[0, duration]` into segments of `segmentSeconds`; a tail shorter than a quarter segment
 * joins the segment before it (a 0.3 s tail would only repeat that segment's last frame).
 * @example segmentBounds(25, 10) // [{start:0,end:10},{start:10,end:20},{start:20,end:25}]
 */
export function segmentBounds(duration: number, segmentSeconds: number): { start: number; end: number }[] {
  if (!Number.isFinite(duration) || duration <= 0) {
    throw new VmemError('UNSUPPORTED_FILE', `The video reports a duration of ${String(duration)} s; it looks damaged or is still being written.`);
  }
  const bounds: { start: number; end: number }[] = [];
  for (let start = 0; start < duration; start += segmentSeconds) bounds.push({ start, end: Math.min(duration, start + segmentSeconds) });
  const last = bounds[bounds.length - 1]!;
  if (bounds.length > 1 && last.end - last.start < segmentSeconds / 4) {
    bounds.pop();
    bounds[bounds.length - 1] = { start: bounds[bounds.length - 1]!.start, end: duration };
  }
  return bounds;
}

/**
 * Times to sample: every 1/`fps` s (fewer when that would exceed `maxSamples`), plus each segment's
 * start, so every segment has a sample at its first instant.
 * @example sampleTimes(3, 2, 10) // [0, 0.5, 1, 1.5, 2, 2.5]
 */
export function sampleTimes(duration: number, fps: number, segmentSeconds: number, maxSamples = 600): number[] {
  if (!Number.isFinite(fps) || fps <= 0) throw new VmemError('INVALID_INPUT', `sampleFps must be a positive number, got ${String(fps)}.`);
  const step = Math.max(1 / fps, duration / maxSamples);
  const times = new Set<number>();
  for (let k = 0; k * step < duration; k++) times.add(round3(k * step));
  for (const { start } of segmentBounds(duration, segmentSeconds)) times.add(round3(start));
  return [...times].sort((a, b) => a - b);
}

/**
 * Chooses up to K frames per segment by visual change: the segment's first frame, then the frames
 * right after the largest changes between consecutive samples, skipping any frame within
 * `minChange` of a frame already kept. Segments without samples are left out.
 * Samples must be in time order.
 */
export function selectKeyframes(samples: readonly FrameSample[], duration: number, options: KeyframeOptions = {}): SegmentPlan[] {
  const settings = normalizeKeyframeOptions(options);
  return forEachSegment(samples, duration, settings, (indices) => {
    const changes = indices.map((index, at) => (at === 0 ? 0 : meanAbsDiff(samples[index]!.thumb, samples[indices[at - 1]!]!.thumb)));
    const kept = [0];
    const byChange = indices.map((_, at) => at).slice(1).sort((a, b) => changes[b]! - changes[a]! || a - b);
    for (const candidate of byChange) {
      if (kept.length >= settings.framesPerSegment) break;
      const thumb = samples[indices[candidate]!]!.thumb;
      if (kept.every((at) => meanAbsDiff(thumb, samples[indices[at]!]!.thumb) >= settings.minChange)) kept.push(candidate);
    }
    return kept.sort((a, b) => a - b).map((at) => ({ time: samples[indices[at]!]!.time, sampleIndex: indices[at]!, change: changes[at]! }));
  });
}

/**
 * The baseline: K frames evenly spread over each segment (the sample nearest the middle of each
 * K-th of it), whatever they show. Used to compare against `selectKeyframes`.
 */
export function uniformKeyframes(samples: readonly FrameSample[], duration: number, options: KeyframeOptions = {}): SegmentPlan[] {
  const settings = normalizeKeyframeOptions(options);
  return forEachSegment(samples, duration, settings, (indices, bounds) => {
    const length = bounds.end - bounds.start;
    const picked = new Set<number>();
    for (let j = 0; j < settings.framesPerSegment; j++) {
      const target = bounds.start + ((j + 0.5) * length) / settings.framesPerSegment;
      const nearest = indices.reduce((best, index) => (Math.abs(samples[index]!.time - target) < Math.abs(samples[best]!.time - target) ? index : best));
      picked.add(nearest);
    }
    return [...picked].sort((a, b) => a - b).map((index) => ({ time: samples[index]!.time, sampleIndex: index, change: 0 }));
  });
}

function forEachSegment(
  samples: readonly FrameSample[],
  duration: number,
  settings: NormalizedKeyframeOptions,
  choose: (indices: number[], bounds: { start: number; end: number }) => ChosenFrame[],
): SegmentPlan[] {
  const bounds = segmentBounds(duration, settings.segmentSeconds);
  const plans: SegmentPlan[] = [];
  bounds.forEach((segment, index) => {
    const isLast = index === bounds.length - 1;
    const indices = samples.flatMap((sample, at) => (sample.time >= segment.start && (sample.time < segment.end || (isLast && sample.time <= segment.end)) ? [at] : []));
    if (indices.length === 0) return;
    plans.push({ index: plans.length, start: segment.start, end: segment.end, frames: choose(indices, segment) });
  });
  return plans;
}

// Millisecond precision: avoids 0.30000000000000004 in times and ids.
function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
