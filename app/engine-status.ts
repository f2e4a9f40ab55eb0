/** The backend badge's wording: which backend runs, and why not WebGPU when it is not. */
import type { StartedEncoders } from '../src/worker/start.js';

/** Short text for the badge and a longer tooltip. */
export function describeEngine(engine: StartedEncoders): { text: string; detail: string } {
  const { backend, gpu, fallbackReason } = engine;
  if (backend === 'webgpu') {
    const text = gpu.isFallbackAdapter ? 'Backend: WebGPU (software adapter)' : 'Backend: WebGPU';
    const { info } = engine.client;
    const agreement = info.agreement
      ? ` Checked against WASM: cosine ${info.agreement.text.toFixed(5)} (text)${info.agreement.image === undefined ? '' : `, ${info.agreement.image.toFixed(5)} (image)`}.`
      : '';
    return { text, detail: `Encoders run on WebGPU.${agreement} Models: ${info.text.id}, ${info.image?.id ?? 'no image encoder'}.` };
  }
  if (fallbackReason) return { text: 'Backend: WASM (WebGPU failed, fell back)', detail: fallbackReason };
  const why = gpu.available ? 'WebGPU available but the encoders run on WASM' : `WebGPU unavailable: ${gpu.reason ?? 'no adapter'}`;
  return { text: `Backend: WASM`, detail: why };
}
