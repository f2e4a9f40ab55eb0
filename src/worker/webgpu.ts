/**
 * Moving the TF.js encoders onto WebGPU after they loaded on WASM, with a correctness probe: the
 * same inputs must give the same vectors on both backends, or WebGPU is refused (and the client
 * falls back to a fresh WASM worker).
 */
import { findBackend, getBackend, setBackend } from '@tensorflow/tfjs-core';
import type { ImageDescriber } from '../describe/types.js';
import { VmemError } from '../errors.js';
import type { ImagePayload } from '../encoders/types.js';
import type { HostedEncoders } from './host.js';
import { drawProbeImage } from './probe-image.js';
import { avoidSyncGpuReads } from './webgpu-sync-reads.js';

/**
 * Cosine below which a WebGPU vector counts as different from the WASM one. Measured on Chromium's
 * SwiftShader adapter: text 0.99999994, image 0.99999999, so this only catches real faults (a
 * wrong kernel, zeros from a failed read), never float rounding.
 */
const AGREEMENT = 0.999;
const PROBE_TEXTS = ['a tabby cat sleeping on the radiator', 'the motorcycle is parked in the garage'];

/**
 * Switches TF.js to WebGPU and checks the encoders still agree with WASM (text, and the image
 * encoder on `probeImage` or a drawn test image). Rejects with `MODEL_LOAD_FAILED` naming the cause
 * (no adapter, missing kernel, different results).
 */
export async function moveToWebGpu(encoders: HostedEncoders, probeImage?: ImagePayload): Promise<HostedEncoders> {
  const image = encoders.image && !encoders.image.captionOnly ? (probeImage ?? (await drawProbeImage())) : undefined;
  const referenceText = await encoders.text.embed(PROBE_TEXTS);
  const referenceImage = image ? await encoders.image!.embed([image]) : undefined;
  let lane = 'text';
  try {
    await import('@tensorflow/tfjs-backend-webgpu');
    if (!(await setBackend('webgpu'))) throw new Error('tf.setBackend("webgpu") returned false (no adapter in this worker)');
    if (!avoidSyncGpuReads(findBackend('webgpu'))) throw new Error('this TF.js WebGPU backend has unexpected internals (expected tfjs-backend-webgpu 4.x)');
    const text = agreement('text', referenceText, await encoders.text.embed(PROBE_TEXTS));
    let imageCosine: number | undefined;
    if (image && referenceImage) {
      lane = 'image';
      imageCosine = agreement('image', referenceImage, await encoders.image!.embed([image]));
    }
    return {
      ...encoders,
      ...(encoders.describer ? { describer: describeOnWasm(encoders.describer) } : {}),
      backend: 'webgpu',
      agreement: { text, ...(imageCosine === undefined ? {} : { image: imageCosine }) },
    };
  } catch (error) {
    // Leave the realm as it was, in case the caller keeps this worker on WASM.
    if (getBackend() !== 'wasm') await setBackend('wasm');
    const reason = error instanceof Error ? error.message : String(error);
    throw new VmemError('MODEL_LOAD_FAILED', `The encoders cannot run on WebGPU here (${lane} encoder): ${reason}`, { cause: error });
  }
}

/**
 * The describer's detector kept on WASM while the encoders run on WebGPU: its results then do not
 * depend on the adapter (a description is stored for good), and on a software adapter it runs at
 * WASM speed instead of 30–100× slower. Safe because the host runs one call at a time, so no encoder
 * call runs while the backend is switched.
 */
function describeOnWasm(describer: ImageDescriber): ImageDescriber {
  return {
    ...describer,
    async describe(images) {
      await setBackend('wasm');
      try {
        return await describer.describe(images);
      } finally {
        await setBackend('webgpu');
      }
    },
  };
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
