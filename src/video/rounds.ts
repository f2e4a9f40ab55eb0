/** Turns chosen video frames into memory rounds: one round per segment, its frames as images. */
import { VmemError } from '../errors.js';
import type { RoundInput } from '../types.js';
import type { SegmentPlan } from './select.js';

/** A captured frame, encoded. */
export interface CapturedFrame {
  /** Seconds from the start of the clip. */
  readonly time: number;
  readonly bytes: Uint8Array;
  readonly mimeType: string;
}

/** What every round of one clip shares. */
export interface ClipRoundOptions {
  /** Id of the clip; round and image ids derive from it. */
  readonly videoId: string;
  /** Shown in the round text, e.g. the file name. */
  readonly name: string;
  /** @default 'default' */
  readonly sessionId?: string;
  /** Epoch ms of the clip's start; each round is stamped with start + segment start. @default Date.now() */
  readonly timestamp?: number;
  /** The user's own words about the clip, added to every segment's text. @default undefined */
  readonly note?: string;
}

/**
 * `m:ss` (or `h:mm:ss`) of a time in seconds, rounded down.
 * @example formatClock(70) // '1:10'
 */
export function formatClock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds + 1e-6));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** `[Video clip "name" 0:10–0:20]`: the text that says where a segment comes from. */
export function segmentLabel(name: string, start: number, end: number): string {
  return `[Video clip "${name}" ${formatClock(start)}–${formatClock(Math.ceil(end - 1e-6))}]`;
}

/**
 * One `RoundInput` per segment: the user turn holds the segment's frames as images and a
 * `[Video clip …]` label; `meta` keeps `videoId`, `segmentStart` and `segmentEnd` (seconds).
 * `frames` must hold a capture for every chosen frame time.
 */
export function segmentsToRounds(plans: readonly SegmentPlan[], frames: ReadonlyMap<number, CapturedFrame>, options: ClipRoundOptions): RoundInput[] {
  const base = options.timestamp === undefined ? Date.now() : options.timestamp;
  const note = options.note?.trim();
  return plans.map((plan) => ({
    id: `${options.videoId}#${plan.index}`,
    sessionId: options.sessionId ?? 'default',
    timestamp: base + Math.round(plan.start * 1000),
    user: {
      text: note ? `${segmentLabel(options.name, plan.start, plan.end)} ${note}` : segmentLabel(options.name, plan.start, plan.end),
      images: plan.frames.map((frame) => {
        const captured = frames.get(frame.time);
        if (!captured) throw new VmemError('INVALID_INPUT', `No captured frame at ${frame.time} s of "${options.name}"; capture every chosen frame first.`);
        return { id: `${options.videoId}@${Math.round(frame.time * 1000)}ms`, bytes: captured.bytes, mimeType: captured.mimeType };
      }),
    },
    meta: { videoId: options.videoId, segmentStart: plan.start, segmentEnd: plan.end },
  }));
}
