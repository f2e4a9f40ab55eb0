import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { VmemError } from '../errors.js';
import type { TextEmbedder } from '../encoders/types.js';
import type { WorkerLike } from './client.js';
import { createEncoderHost, type EncoderFactory } from './host.js';
import { WORKER_READY_MESSAGE, type EncoderWorkerConfig, type GpuCapability } from './protocol.js';
import { startEncoders, type StartedEncoders } from './start.js';

const text: TextEmbedder = { id: 'fake-text', dimension: 1, embed: async (texts) => texts.map(() => new Float32Array([1])) };

/** A worker stand-in whose host runs over a MessageChannel; records the configs it was asked to load. */
function workerFactory(factory: EncoderFactory) {
  const configs: EncoderWorkerConfig[] = [];
  const createWorker = (): WorkerLike => {
    const { port1, port2 } = new MessageChannel();
    Comlink.expose(
      createEncoderHost((config, onProgress) => {
        configs.push(config);
        return factory(config, onProgress);
      }),
      port2 as unknown as Comlink.Endpoint,
    );
    port2.postMessage({ type: WORKER_READY_MESSAGE });
    port1.start();
    return {
      postMessage: (message, transfer) => port1.postMessage(message, (transfer ?? []) as never),
      addEventListener: (type, listener) => (type === 'message' ? port1.addEventListener('message', listener as never) : undefined),
      removeEventListener: (type, listener) => (type === 'message' ? port1.removeEventListener('message', listener as never) : undefined),
      terminate: () => {
        port1.close();
        port2.close();
      },
    };
  };
  return { createWorker, configs };
}

const swiftShader: GpuCapability = { available: true, isFallbackAdapter: true };
const running: StartedEncoders[] = [];
afterEach(() => {
  for (const engine of running.splice(0)) engine.client.terminate();
});

describe('startEncoders', () => {
  it('runs on WebGPU when the worker moved there, and passes the probe agreement on', async () => {
    const { createWorker, configs } = workerFactory(async (config) => ({ text, backend: config.backend, agreement: { text: 0.9999999, image: 1 } }));
    const engine = await startEncoders({ createWorker, encoders: 'embedded', webgpuWasm: 'https://example.test/ort-wasm-simd-threaded.jsep.wasm', detect: async () => swiftShader });
    running.push(engine);
    expect(engine.backend).toBe('webgpu');
    expect(engine.fallbackReason).toBeUndefined();
    expect(engine.client.info.agreement).toEqual({ text: 0.9999999, image: 1 });
    expect(configs.map((config) => [config.backend, config.webgpuWasm])).toEqual([['webgpu', 'https://example.test/ort-wasm-simd-threaded.jsep.wasm']]);
  });

  it('falls back to a fresh WASM worker, saying why, when WebGPU fails', async () => {
    const { createWorker, configs } = workerFactory(async (config) => {
      if (config.backend === 'webgpu') throw new VmemError('MODEL_LOAD_FAILED', 'The encoders cannot run on WebGPU here (text encoder): test');
      return { text, backend: 'wasm' };
    });
    const engine = await startEncoders({ createWorker, encoders: 'embedded', webgpuWasm: 'https://example.test/ort-wasm-simd-threaded.jsep.wasm', detect: async () => swiftShader });
    running.push(engine);
    expect(engine.backend).toBe('wasm');
    expect(engine.fallbackReason).toMatch(/^MODEL_LOAD_FAILED: The encoders cannot run on WebGPU here/);
    expect(configs.map((config) => config.backend)).toEqual(['webgpu', 'wasm']);
  });

  it("starts on WASM, never trying WebGPU, when the page named no full build of onnxruntime-web", async () => {
    const { createWorker, configs } = workerFactory(async (config) => ({ text, backend: config.backend }));
    const engine = await startEncoders({ createWorker, encoders: 'embedded', detect: async () => swiftShader });
    running.push(engine);
    expect(engine.backend).toBe('wasm');
    expect(configs).toEqual([expect.not.objectContaining({ webgpuWasm: expect.anything() })]);
    expect(configs.map((config) => config.backend)).toEqual(['wasm']);
  });

  it('starts on WASM directly when asked to, without asking for a WebGPU adapter', async () => {
    const { createWorker, configs } = workerFactory(async (config) => ({ text, backend: config.backend }));
    let probes = 0;
    const engine = await startEncoders({ createWorker, encoders: 'embedded', backend: 'wasm', detect: async () => (probes++, swiftShader) });
    running.push(engine);
    expect(engine.backend).toBe('wasm');
    expect(configs.map((config) => config.backend)).toEqual(['wasm']);
    expect(probes).toBe(0);
    expect(engine.gpu).toMatchObject({ available: false, reason: expect.stringContaining('not checked') });
  });

  it('starts loading the worker module while WebGPU is still being probed', async () => {
    const { createWorker } = workerFactory(async (config) => ({ text, backend: config.backend }));
    const order: string[] = [];
    const engine = await startEncoders({
      createWorker: () => {
        order.push('worker created');
        return createWorker();
      },
      encoders: 'embedded',
     
      detect: async () => {
        order.push('probe started');
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push('probe answered');
        return { available: false, isFallbackAdapter: false };
      },
    });
    running.push(engine);
    expect(order).toEqual(['worker created', 'probe started', 'probe answered']);
    expect(engine.backend).toBe('wasm');
  });
});
