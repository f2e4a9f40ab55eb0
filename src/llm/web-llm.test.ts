import { describe, expect, it } from 'vitest';
import type { VmemProgress } from '../progress.js';
import { LlmError, VmemError } from '../errors.js';
import { createWebLlmProvider, type WebLlmChatRequest, type WebLlmEngine } from './web-llm.js';

/** A stand-in engine: answers with `reply(request)` after `delayMs`, and can be interrupted. */
function fakeEngine(reply: (request: WebLlmChatRequest) => unknown, delayMs = 0) {
  const requests: WebLlmChatRequest[] = [];
  let interrupts = 0;
  let running = 0;
  let maxRunning = 0;
  let interrupt: (() => void) | undefined;
  const engine: WebLlmEngine = {
    chat: {
      completions: {
        create: async (request) => {
          requests.push(request);
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          try {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, delayMs);
              interrupt = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            const value = reply(request);
            if (value instanceof Error) throw value;
            return value;
          } finally {
            running -= 1;
          }
        },
      },
    },
    interruptGenerate: () => {
      interrupts += 1;
      interrupt?.();
    },
  };
  return { engine, requests, stats: () => ({ interrupts, maxRunning }) };
}

const text = (content: string) => ({ choices: [{ message: { role: 'assistant', content } }] });

describe('createWebLlmProvider', () => {
  it('sends text-only messages with temperature 0 and returns the reply text', async () => {
    const { engine, requests } = fakeEngine(() => text('It was red.'));
    const llm = createWebLlmProvider({ model: 'fake-model', engine });
    expect(llm).toMatchObject({ kind: 'web-llm', available: true, vision: false });

    const answer = await llm.complete({
      messages: [{ role: 'user', content: 'What colour?', images: [{ url: 'data:image/png;base64,AAAA' }] }],
      maxTokens: 20,
    });

    expect(answer).toBe('It was red.');
    expect(requests).toEqual([{ messages: [{ role: 'user', content: 'What colour?' }], temperature: 0, max_tokens: 20, stream: false }]);
  });

  it('runs calls one at a time, and a failed call does not block the next', async () => {
    let calls = 0;
    const { engine, stats } = fakeEngine(() => (++calls === 1 ? new Error('GPU hiccup') : text(`reply ${calls}`)), 20);
    const llm = createWebLlmProvider({ model: 'fake-model', engine });
    const ask = () => llm.complete({ messages: [{ role: 'user', content: 'q' }] });

    const results = await Promise.allSettled([ask(), ask(), ask()]);

    expect(results[0]).toMatchObject({ status: 'rejected', reason: { code: 'LLM_UNAVAILABLE' } });
    expect(results.slice(1)).toEqual([
      { status: 'fulfilled', value: 'reply 2' },
      { status: 'fulfilled', value: 'reply 3' },
    ]);
    expect(stats().maxRunning).toBe(1);
  });

  it('maps a context-window overflow to LLM_CONTEXT_LENGTH', async () => {
    const overflow = Object.assign(new Error('Prompt tokens exceed context window size'), { name: 'ContextWindowSizeExceededError' });
    const { engine } = fakeEngine(() => overflow);
    const llm = createWebLlmProvider({ model: 'fake-model', engine });

    const error = await llm.complete({ messages: [{ role: 'user', content: 'long' }] }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).code).toBe('LLM_CONTEXT_LENGTH');
  });

  it('rejects a reply without text as LLM_MALFORMED', async () => {
    const { engine } = fakeEngine(() => ({ choices: [] }));
    const llm = createWebLlmProvider({ model: 'fake-model', engine });

    await expect(llm.complete({ messages: [{ role: 'user', content: 'q' }] })).rejects.toMatchObject({ code: 'LLM_MALFORMED' });
  });

  it('interrupts generation when the caller aborts and rejects with the abort reason', async () => {
    const { engine, stats } = fakeEngine(() => text('partial'), 5_000);
    const llm = createWebLlmProvider({ model: 'fake-model', engine });
    const controller = new AbortController();
    const reason = new Error('stop');

    const pending = llm.complete({ messages: [{ role: 'user', content: 'q' }], signal: controller.signal });
    setTimeout(() => controller.abort(reason), 20);

    await expect(pending).rejects.toBe(reason);
    expect(stats().interrupts).toBe(1);
  });

  it('without WebGPU, fails to load with MODEL_LOAD_FAILED and tries again on the next call', async () => {
    const events: VmemProgress[] = [];
    const llm = createWebLlmProvider({ model: 'Llama-3.2-1B-Instruct-q4f16_1-MLC', onProgress: (e) => events.push(e) });

    const first = await llm.load().catch((e: unknown) => e);
    const second = await llm.complete({ messages: [{ role: 'user', content: 'q' }] }).catch((e: unknown) => e);

    expect(first).toBeInstanceOf(VmemError);
    expect((first as VmemError).code).toBe('MODEL_LOAD_FAILED');
    expect((first as VmemError).message).toContain('WebGPU');
    expect((second as VmemError).code).toBe('MODEL_LOAD_FAILED');
    expect(events.filter((e) => e.status === 'initiate')).toHaveLength(2);
  });

  it('refuses an empty model id', () => {
    expect(() => createWebLlmProvider({ model: ' ' })).toThrow(VmemError);
  });
});
