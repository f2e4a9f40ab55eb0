import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { VmemError } from '../errors.js';
import type { ImageEmbedder, TextEmbedder } from '../encoders/types.js';
import { startEncoderWorker, type WorkerLike } from './client.js';
import { createEncoderHost, type EncoderFactory } from './host.js';
import { WORKER_READY_MESSAGE, resolveBackend, type EncoderWorkerConfig } from './protocol.js';

const config: EncoderWorkerConfig = { encoders: 'embedded', backend: 'wasm', threads: 1 };

/** A text encoder that maps a text to [length, 1] normalised; slow when asked for "slow". */
const textEncoder: TextEmbedder = {
  id: 'fake-text',
  dimension: 2,
  async embed(texts) {
    if (texts.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 500));
    if (texts.includes('broken')) throw new VmemError('INVALID_INPUT', 'cannot encode "broken"');
    return texts.map((text) => {
      const norm = Math.hypot(text.length, 1);
      return new Float32Array([text.length / norm, 1 / norm]);
    });
  },
};
const imageEncoder: ImageEmbedder = {
  id: 'fake-image',
  dimension: 1,
  async embed(images) {
    return images.map(() => new Float32Array([1]));
  },
};

/** A worker stand-in: the host runs on the other end of a MessageChannel, like in a real worker. */
function fakeWorker(factory: EncoderFactory, options: { announceReady?: boolean } = {}) {
  const { port1, port2 } = new MessageChannel();
  const events = new EventTarget();
  Comlink.expose(createEncoderHost(factory), port2 as unknown as Comlink.Endpoint);
  if (options.announceReady !== false) port2.postMessage({ type: WORKER_READY_MESSAGE });
  let terminated = false;
  const worker: WorkerLike & { crash(message: string): void; terminated(): boolean } = {
    postMessage: (message, transfer) => port1.postMessage(message, (transfer ?? []) as never),
    addEventListener: (type, listener) => (type === 'message' ? port1.addEventListener('message', listener as never) : events.addEventListener(type, listener)),
    removeEventListener: (type, listener) => (type === 'message' ? port1.removeEventListener('message', listener as never) : events.removeEventListener(type, listener)),
    terminate: () => {
      terminated = true;
      port1.close();
      port2.close();
    },
    crash: (message) => events.dispatchEvent(Object.assign(new Event('error'), { message })),
    terminated: () => terminated,
  };
  port1.start();
  return worker;
}

const started: { terminate(): void }[] = [];
afterEach(() => {
  for (const client of started.splice(0)) client.terminate();
});

describe('startEncoderWorker', () => {
  it('encodes through the worker and counts every call', async () => {
    const client = await startEncoderWorker({ createWorker: () => fakeWorker(async () => ({ text: textEncoder, image: imageEncoder, backend: 'wasm' })), config });
    started.push(client);
    expect(client.info).toMatchObject({ backend: 'wasm', text: { id: 'fake-text', dimension: 2 }, image: { id: 'fake-image', dimension: 1 } });
    const [vector] = await client.textEncoder.embed(['abc']);
    expect(vector).toBeInstanceOf(Float32Array);
    expect(vector![0]).toBeCloseTo(3 / Math.hypot(3, 1), 5);
    await client.imageEncoder!.embed([{ bytes: new Uint8Array([1, 2]), mimeType: 'image/png' }, {}]);
    expect(await client.counts()).toEqual({ textCalls: 1, textItems: 1, imageCalls: 1, imageItems: 2 });
  });

  it('rejects a call that outlives its timeout with WORKER_TIMEOUT', async () => {
    const client = await startEncoderWorker({
      createWorker: () => fakeWorker(async () => ({ text: textEncoder, backend: 'wasm' })),
      config,
      callTimeoutMs: 50,
      perItemTimeoutMs: 0,
    });
    started.push(client);
    await expect(client.textEncoder.embed(['slow'])).rejects.toMatchObject({ code: 'WORKER_TIMEOUT' });
  });

  it('rejects pending calls with WORKER_FAILED when the worker dies, and later calls too', async () => {
    const worker = fakeWorker(async () => ({ text: textEncoder, backend: 'wasm' }));
    const client = await startEncoderWorker({ createWorker: () => worker, config });
    started.push(client);
    const pending = client.textEncoder.embed(['slow']);
    worker.crash('out of memory');
    await expect(pending).rejects.toThrow(/encoder worker stopped: out of memory/);
    await expect(client.textEncoder.embed(['a'])).rejects.toMatchObject({ code: 'WORKER_FAILED' });
    expect(worker.terminated()).toBe(true);
    expect((await client.stopped).code).toBe('WORKER_FAILED');
  });

  it('keeps a worker error typed and keeps serving after a failed call', async () => {
    const client = await startEncoderWorker({ createWorker: () => fakeWorker(async () => ({ text: textEncoder, backend: 'wasm' })), config });
    started.push(client);
    await expect(client.textEncoder.embed(['broken'])).rejects.toSatisfy((error) => error instanceof VmemError && error.code === 'INVALID_INPUT');
    expect(await client.textEncoder.embed(['ok'])).toHaveLength(1);
  });

  it('fails the handshake with WORKER_TIMEOUT when the worker never says ready', async () => {
    const worker = fakeWorker(async () => ({ text: textEncoder, backend: 'wasm' }), { announceReady: false });
    await expect(startEncoderWorker({ createWorker: () => worker, config, readyTimeoutMs: 50 })).rejects.toMatchObject({ code: 'WORKER_TIMEOUT' });
    expect(worker.terminated()).toBe(true);
  });

  it('surfaces a model load failure and lets a new load be tried', async () => {
    let attempts = 0;
    const factory: EncoderFactory = async () => {
      attempts += 1;
      if (attempts === 1) throw new VmemError('MODEL_LOAD_FAILED', 'model.json: 404');
      return { text: textEncoder, backend: 'wasm' };
    };
    await expect(startEncoderWorker({ createWorker: () => fakeWorker(factory), config })).rejects.toMatchObject({ code: 'MODEL_LOAD_FAILED' });
    const client = await startEncoderWorker({ createWorker: () => fakeWorker(factory), config });
    started.push(client);
    expect(client.info.text.id).toBe('fake-text');
  });
});

describe('resolveBackend', () => {
  it('uses WebGPU only when an adapter exists and the user did not force WASM', () => {
    expect(resolveBackend('auto', { available: true, isFallbackAdapter: false }, true)).toBe('webgpu');
    expect(resolveBackend('auto', { available: false, isFallbackAdapter: false }, true)).toBe('wasm');
    expect(resolveBackend('wasm', { available: true, isFallbackAdapter: false }, true)).toBe('wasm');
    expect(resolveBackend('webgpu', { available: false, isFallbackAdapter: false }, true)).toBe('wasm');
    // Without onnxruntime-web's full build (not shipped; the page names it) WebGPU cannot run.
    expect(resolveBackend('auto', { available: true, isFallbackAdapter: false }, false)).toBe('wasm');
  });
});
