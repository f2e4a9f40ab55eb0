/**
 * Records a real WebM video in the browser for end-to-end tests: photos drawn on a canvas in timed
 * stretches, captured by `canvas.captureStream` and `MediaRecorder`. Runs in real time.
 */
import { VmemError } from '../../errors.js';

/** One stretch: `image` is shown from `from` to `to` seconds. */
export interface SlideshowStretch {
  readonly from: number;
  readonly to: number;
  readonly image: ImageBitmap;
}

/**
 * Plays the stretches on a `width × height` canvas and records them as WebM (VP8).
 * @example const webm = await recordSlideshow([{ from: 0, to: 5, image }], { width: 640, height: 480 });
 */
export async function recordSlideshow(stretches: readonly SlideshowStretch[], size: { width: number; height: number }, fps = 25): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = size.width;
  canvas.height = size.height;
  const context = canvas.getContext('2d');
  if (!context) throw new VmemError('UNSUPPORTED_FILE', 'No 2D canvas in this browser.');
  const mimeType = ['video/webm;codecs=vp8', 'video/webm;codecs=vp9', 'video/webm'].find((type) => MediaRecorder.isTypeSupported(type));
  if (!mimeType) throw new VmemError('UNSUPPORTED_FILE', 'This browser cannot record WebM video.');
  const duration = stretches[stretches.length - 1]!.to;
  const draw = (seconds: number) => {
    const stretch = stretches.find((item) => seconds >= item.from && seconds < item.to) ?? stretches[stretches.length - 1]!;
    context.drawImage(stretch.image, 0, 0, size.width, size.height);
  };
  draw(0);
  const stream = canvas.captureStream(fps);
  const recorder = new MediaRecorder(stream, { mimeType, videoBitsPerSecond: 2_000_000 });
  const chunks: Blob[] = [];
  recorder.ondataavailable = (event) => chunks.push(event.data);
  const stopped = new Promise<void>((resolve) => (recorder.onstop = () => resolve()));
  // The clock starts when recording does, so video time matches the planned stretches.
  const recording = new Promise<void>((resolve) => (recorder.onstart = () => resolve()));
  recorder.start(250);
  await recording;
  const started = performance.now();
  draw(0);
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const seconds = (performance.now() - started) / 1000;
      if (seconds >= duration) {
        clearInterval(timer);
        resolve();
        return;
      }
      draw(seconds);
    }, 1000 / fps);
  });
  recorder.stop();
  await stopped;
  for (const track of stream.getTracks()) track.stop();
  return new Blob(chunks, { type: 'video/webm' });
}
