/**
 * Moving the embedded encoders onto onnxruntime-web's WebGPU execution provider, with a
 * correctness probe: the same inputs must give the same vectors as on WASM, or WebGPU is refused
 * (and the client falls back to a fresh WASM worker).
 */
import { VmemError } from '../errors.js';
import type { ImageEmbedder, ImagePayload, TextEmbedder } from '../encoders/types.js';
import type { HostedEncoders } from './host.js';
import { drawProbeImage } from './probe-image.js';

/**
 * Cosine below which a WebGPU vector counts as different from the WASM one. Measured on Chromium's
 * SwiftShader adapter: above 0.99999 for both encoders, so this only catches real faults (a wrong
 * kernel, zeros from a failed read), never float rounding.
 */
const AGREEMENT = 0.999;
const PROBE_TEXTS = ['a tabby cat sleeping on the radiator', 'the motorcycle is parked in the garage'];

/** Encoders that can be loaded and freed. */
export interface LoadableEncoders {
  readonly text: TextEmbedder & { load(): Promise<void>; dispose(): Promise<void> };
  readonly image?: ImageEmbedder & { load(): Promise<void>; dispose(): Promise<void> };
}

/**
 * Takes the WASM encoders' vectors of the probe inputs (text, and the image encoder on `probeImage`
 * or a drawn test image), frees the WASM encoders, then loads the WebGPU ones and checks they agree.
 * Rejects with `MODEL_LOAD_FAILED` naming the cause (no adapter, a missing kernel, different
 * results); the caller then starts over on WASM in a fresh worker.
 */
export async function moveToWebGpu(wasm: LoadableEncoders, webgpu: LoadableEncoders, probeImage?: ImagePayload): Promise<HostedEncoders> {
  const image = wasm.image && !wasm.image.captionOnly ? (probeImage ?? (await drawProbeImage())) : undefined;
  const referenceText = await wasm.text.embed(PROBE_TEXTS);
  const referenceImage = image ? await wasm.image!.embed([image]) : undefined;
  // Freed before the WebGPU sessions exist: releasing a WASM session of onnxruntime-web 1.30 while
  // WebGPU sessions run took GPU buffers from under them ("no GPU data for input").
  await Promise.all([wasm.text.dispose(), wasm.image?.dispose()]);
  let lane = 'text';
  try {
    await webgpu.text.load();
    const text = agreement('text', referenceText, await webgpu.text.embed(PROBE_TEXTS));
    let imageCosine: number | undefined;
    if (image && referenceImage && webgpu.image) {
      lane = 'image';
      await webgpu.image.load();
      imageCosine = agreement('image', referenceImage, await webgpu.image.embed([image]));
    }
    return { text: webgpu.text, image: webgpu.image, backend: 'webgpu', agreement: { text, ...(imageCosine === undefined ? {} : { image: imageCosine }) } };
  } catch (error) {
    await Promise.all([webgpu.text.dispose(), webgpu.image?.dispose()]);
    const reason = error instanceof Error ? error.message : String(error);
    throw new VmemError('MODEL_LOAD_FAILED', `The encoders cannot run on WebGPU here (${lane} encoder): ${reason}`, { cause: error });
  }
}

/** The lowest cosine between matching vectors; throws when one is below `AGREEMENT`. */
function agreement(lane: string, expected: readonly Float32Array[], actual: readonly Float32Array[]): number {
  let lowest = 1;
  expected.forEach((vector, index) => {
    const other = actual[index]!;
    let dot = 0;
    for (let i = 0; i < vector.length; i++) dot += vector[i]! * other[i]!;
    if (!(dot >= AGREEMENT)) throw new Error(`the ${lane} encoder gives different vectors on WebGPU (cosine ${dot.toFixed(4)} to WASM)`);
    lowest = Math.min(lowest, dot);
  });
  return lowest;
}
