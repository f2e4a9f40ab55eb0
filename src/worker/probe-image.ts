/**
 * A small synthetic photo for the WebGPU agreement probe, drawn in the worker so the probe needs no
 * file from the network. Edges, gradients and flat areas exercise every MobileNet layer.
 */
import type { ImagePayload } from '../encoders/types.js';

/** Side of the probe image in pixels (the encoder scales it to 224 anyway). */
const SIDE = 96;

/** A PNG of a disc and stripes over a gradient, or undefined where OffscreenCanvas cannot encode. */
export async function drawProbeImage(): Promise<ImagePayload | undefined> {
  if (typeof OffscreenCanvas === 'undefined') return undefined;
  const canvas = new OffscreenCanvas(SIDE, SIDE);
  const context = canvas.getContext('2d');
  if (context === null || typeof canvas.convertToBlob !== 'function') return undefined;
  const gradient = context.createLinearGradient(0, 0, SIDE, SIDE);
  gradient.addColorStop(0, '#1d4e89');
  gradient.addColorStop(1, '#f2c14e');
  context.fillStyle = gradient;
  context.fillRect(0, 0, SIDE, SIDE);
  context.fillStyle = '#d7263d';
  for (let x = 0; x < SIDE; x += 16) context.fillRect(x, 0, 6, SIDE / 3);
  context.fillStyle = '#f7f7f7';
  context.beginPath();
  context.arc(SIDE * 0.6, SIDE * 0.65, SIDE / 4, 0, Math.PI * 2);
  context.fill();
  const blob = await canvas.convertToBlob({ type: 'image/png' });
  return { bytes: new Uint8Array(await blob.arrayBuffer()), mimeType: 'image/png' };
}
