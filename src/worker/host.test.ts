import { describe, expect, it } from 'vitest';
import type { TextEmbedder } from '../encoders/types.js';
import { createEncoderHost } from './host.js';
import type { EncoderWorkerConfig } from './protocol.js';

const config: EncoderWorkerConfig = { encoders: 'embedded', backend: 'wasm', threads: 1 };

describe('createEncoderHost warm-up', () => {
  it('answers load before warming up, runs the warm-up before the first call, and does not count it', async () => {
    const events: string[] = [];
    const text: TextEmbedder = {
      id: 'fake-text',
      dimension: 1,
      async embed(texts) {
        events.push(`embed ${texts.join(',')}`);
        return texts.map(() => new Float32Array([1]));
      },
    };
    const host = createEncoderHost(async () => ({
      text,
      backend: 'wasm',
      warmUp: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        events.push('warm-up');
      },
    }));
    await host.load(config);
    events.push('loaded');
    await host.embedTexts(['hello']);
    expect(events).toEqual(['loaded', 'warm-up', 'embed hello']);
    expect(await host.counts()).toEqual({ textCalls: 1, textItems: 1, imageCalls: 0, imageItems: 0 });
  });

  it('a failed warm-up does not fail the next call', async () => {
    const text: TextEmbedder = { id: 'fake-text', dimension: 1, embed: async (texts) => texts.map(() => new Float32Array([1])) };
    const host = createEncoderHost(async () => ({ text, backend: 'wasm', warmUp: async () => Promise.reject(new Error('no')) }));
    await host.load(config);
    expect(await host.embedTexts(['a'])).toHaveLength(1);
  });
});

describe('createEncoderHost describeImages', () => {
  const text: TextEmbedder = { id: 'fake-text', dimension: 1, embed: async (texts) => texts.map(() => new Float32Array([1])) };
  const seen = { objects: [], people: 0, text: 'Hello', colours: ['white' as const], mostlyText: true, screenshot: false, timings: { decode: 1, detect: 1, analyse: 1 } };

  it('runs the hosted describer and names it in the load info', async () => {
    const host = createEncoderHost(async () => ({ text, describer: { id: 'fake-describer', describe: async (images) => images.map(() => seen) }, backend: 'wasm' }));
    expect((await host.load(config)).describer).toEqual({ id: 'fake-describer' });
    expect(await host.describeImages([{ bytes: new Uint8Array([1]) }])).toEqual([seen]);
  });

  it('rejects with INVALID_INPUT when no describer is hosted', async () => {
    const host = createEncoderHost(async () => ({ text, backend: 'wasm' }));
    expect((await host.load(config)).describer).toBeUndefined();
    await expect(host.describeImages([{ bytes: new Uint8Array([1]) }])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
