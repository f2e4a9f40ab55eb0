/** A video clip to memory rounds: sample thumbnails, choose keyframes, capture them, build rounds. No LLM. */
import type { ProgressCallback } from '../progress.js';
import { VmemError } from '../errors.js';
import { newId } from '../memory/ingest.js';
import type { RoundInput } from '../types.js';
import type { GrayImage } from './gray.js';
import { segmentsToRounds, type CapturedFrame } from './rounds.js';
import { normalizeKeyframeOptions, sampleTimes, selectKeyframes, type FrameSample, type KeyframeOptions, type SegmentPlan } from './select.js';

/**
 * Where frames come from: a decoded video in a browser (`openVideoFrames`), synthetic frames in tests.
 * Calls come in increasing time order.
 */
export interface FrameSource {
  /** Seconds. */
  readonly duration: number;
  /** Grayscale thumbnail (64×64 by default) of the frame shown at `time`. */
  thumbnail(time: number): Promise<GrayImage>;
  /** The frame shown at `time`, encoded (JPEG). */
  capture(time: number): Promise<Omit<CapturedFrame, 'time'>>;
}

/** Options of `clipToRounds`. */
export interface ClipOptions extends KeyframeOptions {
  /** Shown in each round's text, e.g. the file name. @default 'video' */
  readonly name?: string;
  /** Id the round and image ids derive from. @default a new random id */
  readonly videoId?: string;
  /** @default 'default' */
  readonly sessionId?: string;
  /** Epoch ms of the clip's start. @default Date.now() */
  readonly timestamp?: number;
  /** The user's words about the clip, added to each segment's text. @default undefined */
  readonly note?: string;
  /** Thumbnails sampled per second for change detection. @default 2 */
  readonly sampleFps?: number;
  /** Most thumbnails sampled; long clips are sampled more sparsely. @default 600 */
  readonly maxSamples?: number;
  /** `video:sample` then `video:capture`, each `initiate`, `progress`…, `done`. */
  readonly onProgress?: ProgressCallback;
  readonly signal?: AbortSignal;
}

/** What `clipToRounds` made. */
export interface ClipResult {
  /** One per segment, ready for `memory.add`. */
  readonly rounds: RoundInput[];
  readonly segments: SegmentPlan[];
  /** The thumbnails compared, in time order (for showing or re-running the selection). */
  readonly samples: FrameSample[];
  readonly videoId: string;
}

/** Default of `ClipOptions.sampleFps`. */
export const DEFAULT_SAMPLE_FPS = 2;

/**
 * Segments a clip into rounds: T-second segments (default 10), up to K frames each (default 3)
 * chosen by visual change, so a static stretch gives one frame, not three.
 * @example
 * const source = await openVideoFrames(file);
 * const { rounds } = await clipToRounds(source, { name: file.name, onProgress });
 * await memory.add(rounds);
 */
export async function clipToRounds(source: FrameSource, options: ClipOptions = {}): Promise<ClipResult> {
  const keyframeOptions = normalizeKeyframeOptions(options);
  const times = sampleTimes(source.duration, options.sampleFps === undefined ? DEFAULT_SAMPLE_FPS : options.sampleFps, keyframeOptions.segmentSeconds, options.maxSamples);
  const { onProgress, signal } = options;

  onProgress?.({ status: 'initiate', task: 'video-sample' });
  const samples: FrameSample[] = [];
  for (const time of times) {
    signal?.throwIfAborted();
    samples.push({ time, thumb: await source.thumbnail(time) });
    onProgress?.({ status: 'progress', task: 'video-sample', loaded: samples.length, total: times.length, unit: 'frames' });
  }
  onProgress?.({ status: 'done', task: 'video-sample' });

  const segments = selectKeyframes(samples, source.duration, keyframeOptions);
  const chosen = segments.flatMap((segment) => segment.frames.map((frame) => frame.time));
  if (chosen.length === 0) throw new VmemError('UNSUPPORTED_FILE', 'No frame could be read from the video; it may be empty or damaged.');

  onProgress?.({ status: 'initiate', task: 'video-capture' });
  const frames = new Map<number, CapturedFrame>();
  for (const time of chosen) {
    signal?.throwIfAborted();
    frames.set(time, { time, ...(await source.capture(time)) });
    onProgress?.({ status: 'progress', task: 'video-capture', loaded: frames.size, total: chosen.length, unit: 'frames' });
  }
  onProgress?.({ status: 'done', task: 'video-capture' });

  const videoId = options.videoId ?? newId('video');
  const rounds = segmentsToRounds(segments, frames, {
    videoId,
    name: options.name ?? 'video',
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
    ...(options.note !== undefined ? { note: options.note } : {}),
  });
  return { rounds, segments, samples, videoId };
}
