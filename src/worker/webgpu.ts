/**
 * Moving the TF.js encoders onto WebGPU after they loaded on WASM, with a correctness probe: the
 * same inputs must give the same vectors on both backends, or WebGPU is refused (and the client
 * falls back to a fresh WASM worker).
 */
import { getBackend, setBackend } from '@tensorflow/tfjs-core';
import { VmemError } from '../errors.js';
import type { ImagePayload } from '../encoders/types.js';
import type { HostedEncoders } from './host.js';

/** Cosine below which a WebGPU vector counts as different from the WASM one. */
const AGREEMENT = 0.999;
const PROBE_TEXTS = ['a tabby cat sleeping on the radiator', 'the motorcycle is parked in the garage'];

/**
 * Switches TF.js to WebGPU and checks the encoders still agree with WASM. Rejects with
 * `MODEL_LOAD_FAILED` naming the cause (no adapter, missing kernel, different results).
 */
export async function moveToWebGpu(encoders: HostedEncoders, probeImage?: ImagePayload): Promise<HostedEncoders> {
  const referenceText = await encoders.text.embed(PROBE_TEXTS);
  const referenceImage = probeImage && encoders.image ? await encoders.image.embed([probeImage]) : undefined;
  try {
    await import('@tensorflow/tfjs-backend-webgpu');
    if (!(await setBackend('webgpu'))) throw new Error('tf.setBackend("webgpu") returned false (no adapter in this worker)');
    assertAgree('text', referenceText, await encoders.text.embed(PROBE_TEXTS));
    if (referenceImage && probeImage) assertAgree('image', referenceImage, await encoders.image!.embed([probeImage]));
  } catch (error) {
    // Leave the realm as it was, in case the caller keeps this worker on WASM.
    if (getBackend() !== 'wasm') await setBackend('wasm');
    throw new VmemError('MODEL_LOAD_FAILED', `The encoders cannot run on WebGPU here: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return { ...encoders, backend: 'webgpu' };
}

function assertAgree(lane: string, expected: readonly Float32Array[], actual: readonly Float32Array[]): void {
  expected.forEach((vector, index) => {
    const other = actual[index]!;
    let dot = 0;
    for (let i = 0; i < vector.length; i++) dot += vector[i]! * other[i]!;
    if (!(dot >= AGREEMENT)) throw new Error(`the ${lane} encoder gives different vectors on WebGPU (cosine ${dot.toFixed(4)} to WASM)`);
  });
}
