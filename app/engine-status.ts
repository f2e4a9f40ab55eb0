/** The backend badge's wording: which backend runs; the tooltip says why (the encoders' own reason). */
import type { BrowserEncoders } from 'vmem/browser';

/** Short text for the badge and a longer tooltip. */
export function describeEngine(engine: BrowserEncoders, webGpuAbsentSince?: Date): { text: string; detail: string } {
  const models = `Models: ${engine.info.text.id}, ${engine.info.image?.id ?? 'no image encoder'}.`;
  const reason = webGpuAbsentSince
    ? `WASM: this browser had no WebGPU adapter on ${webGpuAbsentSince.toLocaleDateString('en')}; it is asked again a week after that.`
    : engine.backendReason;
  const detail = `${reason} ${models}`;
  if (engine.backend === 'webgpu') return { text: engine.webgpu.isFallbackAdapter ? 'Backend: WebGPU (software adapter)' : 'Backend: WebGPU', detail };
  return { text: engine.fallbackReason ? 'Backend: WASM (WebGPU failed, fell back)' : 'Backend: WASM', detail };
}
