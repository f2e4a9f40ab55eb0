/**
 * Makes a real WebM video in the browser for end-to-end tests: photos drawn on a canvas in timed
 * stretches, encoded frame by frame with WebCodecs (VP8) at exact timestamps and muxed with
 * `webm-muxer`. Unlike recording a canvas in real time, the clip's timing does not depend on how busy
 * the machine is.
 */
import { ArrayBufferTarget, Muxer } from 'webm-muxer';
import { VmemError } from '../../errors.js';

/** One stretch: `image` is shown from `from` to `to` seconds. */
export interface SlideshowStretch {
  readonly from: number;
  readonly to: number;
  readonly image: ImageBitmap;
}

/** Frames waiting in the encoder before the loop lets it catch up. */
const MAX_QUEUED_FRAMES = 8;
/** A key frame every this many seconds, as a recorder would write them. */
const KEY_FRAME_SECONDS = 2;

/**
 * Encodes the stretches on a `width × height` canvas as a WebM (VP8) clip of exactly the last
 * stretch's end.
 * @example const webm = await recordSlideshow([{ from: 0, to: 5, image }], { width: 640, height: 480 });
 */
export async function recordSlideshow(stretches: readonly SlideshowStretch[], size: { width: number; height: number }, fps = 25): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = size.width;
  canvas.height = size.height;
  const context = canvas.getContext('2d');
  if (!context) throw new VmemError('UNSUPPORTED_FILE', 'No 2D canvas in this browser.');
  const config: VideoEncoderConfig = { codec: 'vp8', width: size.width, height: size.height, bitrate: 2_000_000, framerate: fps };
  if (typeof VideoEncoder === 'undefined' || !(await VideoEncoder.isConfigSupported(config)).supported) {
    throw new VmemError('UNSUPPORTED_FILE', 'This browser cannot encode VP8 video with WebCodecs.');
  }
  const muxer = new Muxer({ target: new ArrayBufferTarget(), video: { codec: 'V_VP8', width: size.width, height: size.height, frameRate: fps } });
  let failure: unknown;
  const encoder = new VideoEncoder({ output: (chunk, meta) => muxer.addVideoChunk(chunk, meta), error: (error) => (failure = error) });
  encoder.configure(config);

  const duration = stretches[stretches.length - 1]!.to;
  const frameMicros = 1e6 / fps;
  for (let index = 0; index < Math.round(duration * fps); index++) {
    const seconds = index / fps;
    const stretch = stretches.find((item) => seconds >= item.from && seconds < item.to) ?? stretches[stretches.length - 1]!;
    context.drawImage(stretch.image, 0, 0, size.width, size.height);
    const frame = new VideoFrame(canvas, { timestamp: Math.round(index * frameMicros), duration: Math.round(frameMicros) });
    encoder.encode(frame, { keyFrame: index % (KEY_FRAME_SECONDS * fps) === 0 });
    frame.close();
    while (encoder.encodeQueueSize > MAX_QUEUED_FRAMES) await new Promise((resolve) => setTimeout(resolve, 0));
    if (failure) break;
  }
  await encoder.flush();
  encoder.close();
  if (failure) throw new VmemError('UNSUPPORTED_FILE', `Encoding the test clip failed: ${String(failure)}`);
  muxer.finalize();
  return new Blob([muxer.target.buffer], { type: 'video/webm' });
}
