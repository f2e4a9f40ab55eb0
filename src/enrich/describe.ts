/**
 * The optional description job: a vision LLM writes a description for every stored image that has
 * no caption, and the memory indexes it as the image's caption. Off unless the caller runs it.
 * Resumable through a small state object the caller persists.
 */
import type { ProgressCallback } from '../progress.js';
import { errorCode, VmemError } from '../errors.js';
import { assertMaxSide, assertQuality } from '../images/fit.js';
import { LLM_IMAGE_MAX_SIDE, LLM_IMAGE_QUALITY, type ImageResizer } from '../images/types.js';
import type { LlmProvider } from '../llm/types.js';
import type { StoredImage } from '../storage/types.js';
import type { ImageRef, StoredRound } from '../types.js';
import { imagesOf } from '../types.js';
import { pictureDataUrl } from '../images/picture-url.js';
import { describePrompt, joinDescription, parseDescription } from './prompt.js';

/** What the job needs from a memory. `setCaption` is the memory's method that stores and indexes a caption. */
export interface DescribeTarget {
  rounds(): readonly StoredRound[];
  getImage(imageId: string): Promise<StoredImage | undefined>;
  /**
   * Sets the caption of a stored image and indexes it in the text lane (as a `caption` unit and in the
   * turn text); with `source: 'vision-llm'` it also replaces the image's machine-derived description.
   */
  setCaption(imageId: string, caption: string, options?: { readonly source?: 'user' | 'vision-llm' }): Promise<unknown>;
}

/** Why an image got no description. */
export type DescribeFailure = 'decode-failed' | 'missing' | 'empty-description';

/** Progress the caller stores to resume the job later (plain JSON). */
export interface DescribeState {
  /** Image ids described and captioned. */
  readonly described: readonly string[];
  /** Image ids given up on, and why; not retried on resume. */
  readonly failed: readonly { readonly imageId: string; readonly reason: DescribeFailure }[];
}

/** Options of `describeImages`. */
export interface DescribeOptions {
  /** A vision-capable LLM. */
  readonly llm: LlmProvider;
  /** Shrinks each picture before it is sent. */
  readonly imageResizer: ImageResizer;
  /** Longest side of the picture sent. @default 768 */
  readonly maxSide?: number;
  /** JPEG quality of the picture sent, 1–100. @default 80 */
  readonly quality?: number;
  /** State from an earlier run: its images are skipped. @default an empty state */
  readonly resumeFrom?: DescribeState;
  /** Called with the new state after every image; persist it to resume after a reload. */
  readonly onState?: (state: DescribeState) => void | Promise<void>;
  /** Task `describe`: `initiate`, `progress` per image, `done`. */
  readonly onProgress?: ProgressCallback;
  readonly signal?: AbortSignal;
}

/** What a run did. */
export interface DescribeResult {
  readonly state: DescribeState;
  /** Described in this run. */
  readonly described: number;
  /** Images without a caption that this run had to consider. */
  readonly total: number;
}

/**
 * Describes every image that has bytes, no caption, and is not in `resumeFrom`, oldest first.
 * Files that will not decode and empty replies are recorded in `state.failed` and skipped; LLM
 * failures (HTTP, timeout) stop the job with the error after `onState` saw the progress so far, so
 * calling again with that state resumes where it stopped.
 * @example
 * let state = loadState();
 * await describeImages(memory, { llm, imageResizer: browserImageResizer, resumeFrom: state, onState: saveState, onProgress });
 */
export async function describeImages(target: DescribeTarget, options: DescribeOptions): Promise<DescribeResult> {
  if (!options.llm.available || !options.llm.vision) {
    throw new VmemError('LLM_UNAVAILABLE', 'Describing images needs a vision-capable LLM; configure one with vision: true (for example gpt-4o-mini).');
  }
  const maxSide = options.maxSide === undefined ? LLM_IMAGE_MAX_SIDE : options.maxSide;
  const quality = options.quality === undefined ? LLM_IMAGE_QUALITY : options.quality;
  assertMaxSide(maxSide);
  assertQuality(quality);
  const described = [...(options.resumeFrom?.described ?? [])];
  const failed = [...(options.resumeFrom?.failed ?? [])];
  const done = new Set([...described, ...failed.map((item) => item.imageId)]);
  const todo = imagesToDescribe(target.rounds()).filter((ref) => !done.has(ref.id));
  const snapshot = (): DescribeState => ({ described: [...described], failed: [...failed] });
  let count = 0;

  options.onProgress?.({ status: 'initiate', task: 'describe' });
  for (const [index, ref] of todo.entries()) {
    options.signal?.throwIfAborted();
    const outcome = await describeOne(target, ref, options, maxSide, quality);
    if (typeof outcome === 'string') {
      await target.setCaption(ref.id, outcome, { source: 'vision-llm' });
      described.push(ref.id);
      count++;
    } else {
      failed.push({ imageId: ref.id, reason: outcome.failure });
    }
    await options.onState?.(snapshot());
    options.onProgress?.({ status: 'progress', task: 'describe', loaded: index + 1, total: todo.length, unit: 'images' });
  }
  options.onProgress?.({ status: 'done', task: 'describe' });
  return { state: snapshot(), described: count, total: todo.length };
}

/** Images with bytes and no caption, in history order. */
export function imagesToDescribe(rounds: readonly StoredRound[]): ImageRef[] {
  return rounds.flatMap((round) => imagesOf(round)).filter((ref) => ref.hasBytes && !ref.caption?.trim());
}

async function describeOne(
  target: DescribeTarget,
  ref: ImageRef,
  options: DescribeOptions,
  maxSide: number,
  quality: number,
): Promise<string | { failure: DescribeFailure }> {
  let url: string;
  try {
    const stored = await target.getImage(ref.id);
    if (!stored) return { failure: 'missing' };
    const small = await options.imageResizer(stored.bytes, stored.mimeType, maxSide, quality);
    url = pictureDataUrl(small.bytes, small.mimeType, `image "${ref.id}", downscaled`);
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'IMAGE_DECODE_FAILED' && code !== 'UNSUPPORTED_FILE') throw error;
    return { failure: 'decode-failed' };
  }
  const reply = await options.llm.complete({
    messages: describePrompt({ url, detail: 'low' }),
    temperature: 0,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const caption = joinDescription(parseDescription(reply));
  return caption === '' ? { failure: 'empty-description' } : caption;
}
