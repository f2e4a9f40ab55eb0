/**
 * vmem's video entry: a video clip as rounds (one per segment: its key frames as pictures, its
 * clock time in the text), and the browser's frame reader that feeds it.
 * @example
 * import { clipToRounds, openVideoFrames } from 'vmem/video';
 * const { rounds } = await clipToRounds(await openVideoFrames(file), { name: file.name });
 * await memory.add(rounds);
 */
export { clipToRounds } from './video/clip.js';
export type { ClipOptions, ClipResult, FrameSource } from './video/clip.js';
export { formatClock } from './video/rounds.js';
export { openVideoFrames } from './video/browser-frames.js';
export type { VideoFrames, VideoFramesOptions } from './video/browser-frames.js';
export { DEFAULT_SEGMENT_SECONDS, DEFAULT_FRAMES_PER_SEGMENT } from './video/select.js';
