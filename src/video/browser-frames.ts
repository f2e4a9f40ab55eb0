/**
 * Frames of a video file in a browser: an off-screen `<video>` is seeked to each time and drawn on a
 * canvas. Main thread only (workers have no `HTMLVideoElement`).
 */
import { VmemError } from '../errors.js';
import { fitWithin } from '../images/fit.js';
import { LLM_IMAGE_MAX_SIDE, LLM_IMAGE_QUALITY } from '../images/types.js';
import type { FrameSource } from './clip.js';
import { DEFAULT_THUMB_SIZE, toGray } from './gray.js';

/** Options of `openVideoFrames`. */
export interface VideoFramesOptions {
  /** Side of the square grayscale thumbnails compared by frame differencing. @default 64 */
  readonly thumbSize?: number;
  /** Longest side of captured frames, in pixels. @default 768 */
  readonly maxSide?: number;
  /** JPEG quality of captured frames, 1–100. @default 80 */
  readonly quality?: number;
  /** Give up on a seek or on loading after this many milliseconds. @default 15000 */
  readonly timeoutMs?: number;
}

/** A `FrameSource` over a video file; `close()` frees the decoder and the object URL. */
export interface VideoFrames extends FrameSource {
  readonly width: number;
  readonly height: number;
  close(): void;
}

/** Largest video accepted, in bytes. */
export const MAX_VIDEO_BYTES = 512 * 1024 * 1024;

/**
 * Opens a video the browser can decode (WebM, MP4…) as a frame source for `clipToRounds`.
 * Rejects with `UNSUPPORTED_FILE` for files that are not videos, too large, or undecodable.
 * @example
 * const frames = await openVideoFrames(file);
 * try { const { rounds } = await clipToRounds(frames, { name: file.name }); } finally { frames.close(); }
 */
export async function openVideoFrames(file: Blob, options: VideoFramesOptions = {}): Promise<VideoFrames> {
  const thumbSize = options.thumbSize === undefined ? DEFAULT_THUMB_SIZE : options.thumbSize;
  const maxSide = options.maxSide === undefined ? LLM_IMAGE_MAX_SIDE : options.maxSide;
  const quality = options.quality === undefined ? LLM_IMAGE_QUALITY : options.quality;
  const timeoutMs = options.timeoutMs === undefined ? 15_000 : options.timeoutMs;
  const label = file instanceof File ? `"${file.name}"` : 'The video';
  if (file.type !== '' && !file.type.startsWith('video/')) {
    throw new VmemError('UNSUPPORTED_FILE', `${label} is a ${file.type} file; attach a video (WebM or MP4).`);
  }
  if (file.size > MAX_VIDEO_BYTES) {
    throw new VmemError('UNSUPPORTED_FILE', `${label} is ${(file.size / 1e6).toFixed(0)} MB; attach a clip under ${MAX_VIDEO_BYTES / 1024 / 1024} MB (trim it first).`);
  }

  const url = URL.createObjectURL(file);
  const video = document.createElement('video');
  video.muted = true;
  video.preload = 'auto';
  video.playsInline = true;
  const close = () => {
    video.removeAttribute('src');
    video.load(); // Releases the decoder.
    URL.revokeObjectURL(url);
  };
  try {
    video.src = url;
    await waitFor(video, 'loadeddata', timeoutMs, label);
    const duration = await knownDuration(video, timeoutMs, label);
    const size = fitWithin(video.videoWidth, video.videoHeight, maxSide);
    const thumbCanvas = canvas2d(thumbSize, thumbSize);
    const frameCanvas = canvas2d(size.width, size.height);
    // The last frame sits just before `duration`; seeking to it exactly may show nothing.
    const seek = (time: number) => seekTo(video, Math.min(time, Math.max(0, duration - 0.001)), timeoutMs, label);
    return {
      duration,
      width: video.videoWidth,
      height: video.videoHeight,
      async thumbnail(time) {
        await seek(time);
        thumbCanvas.context.drawImage(video, 0, 0, thumbSize, thumbSize);
        return toGray(thumbCanvas.context.getImageData(0, 0, thumbSize, thumbSize));
      },
      async capture(time) {
        await seek(time);
        frameCanvas.context.drawImage(video, 0, 0, size.width, size.height);
        const blob = await frameCanvas.toJpeg(quality / 100);
        return { bytes: new Uint8Array(await blob.arrayBuffer()), mimeType: 'image/jpeg' };
      },
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}

function canvas2d(width: number, height: number) {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) throw new VmemError('UNSUPPORTED_FILE', 'This browser gave no 2D canvas to read video frames; try another browser.');
  return {
    context,
    toJpeg: (quality: number) =>
      new Promise<Blob>((resolve, reject) =>
        canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new VmemError('IMAGE_DECODE_FAILED', 'The browser could not encode a video frame as JPEG.'))), 'image/jpeg', quality),
      ),
  };
}

/**
 * The duration, also for files that do not state it. MediaRecorder's WebM files report `Infinity`
 * until the browser has scanned to the end, which a seek far past the end makes it do.
 */
async function knownDuration(video: HTMLVideoElement, timeoutMs: number, label: string): Promise<number> {
  if (Number.isFinite(video.duration) && video.duration > 0) return video.duration;
  const changed = waitFor(video, 'durationchange', timeoutMs, label);
  video.currentTime = Number.MAX_SAFE_INTEGER;
  await changed;
  while (!Number.isFinite(video.duration)) await waitFor(video, 'durationchange', timeoutMs, label);
  await seekTo(video, 0, timeoutMs, label);
  if (!(video.duration > 0)) throw new VmemError('UNSUPPORTED_FILE', `${label} has no frames; it may be empty or damaged.`);
  return video.duration;
}

async function seekTo(video: HTMLVideoElement, time: number, timeoutMs: number, label: string): Promise<void> {
  if (Math.abs(video.currentTime - time) < 1e-4 && !video.seeking && video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) return;
  const seeked = waitFor(video, 'seeked', timeoutMs, label);
  video.currentTime = time;
  await seeked;
}

/** Resolves on `event`; rejects with `UNSUPPORTED_FILE` on a media error or after `timeoutMs`. */
function waitFor(video: HTMLVideoElement, event: string, timeoutMs: number, label: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      video.removeEventListener(event, onEvent);
      video.removeEventListener('error', onError);
    };
    const onEvent = () => {
      cleanup();
      resolve();
    };
    const onError = () => {
      cleanup();
      const detail = video.error?.message ? ` (${video.error.message})` : '';
      reject(new VmemError('UNSUPPORTED_FILE', `${label} could not be decoded by this browser${detail}; try a WebM or MP4 (H.264) file.`, { cause: video.error }));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new VmemError('UNSUPPORTED_FILE', `${label} did not answer within ${timeoutMs} ms while waiting for "${event}"; the file may be damaged or use a codec this browser lacks.`));
    }, timeoutMs);
    video.addEventListener(event, onEvent);
    video.addEventListener('error', onError);
  });
}
