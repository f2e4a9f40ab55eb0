import { afterEach, describe, expect, it } from 'vitest';
import { LlmError, errorCode } from '../errors.js';
import { createOpenAiProvider } from './openai.js';
import {
  FAKE_COMPLETION_TEXT,
  completionBody,
  startFakeOpenAiServer,
  type FakeHandler,
  type FakeOpenAiServer,
} from './testing/fake-openai-server.js';
import type { LlmMessage } from './types.js';

const KEY = 'sk-test-SECRET-0123456789';
const QUESTION: LlmMessage[] = [{ role: 'user', content: 'What colour was the bike?' }];

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler?: FakeHandler): Promise<FakeOpenAiServer> {
  server = await startFakeOpenAiServer(handler);
  return server;
}

/** The rejection of `promise`, failing the test when it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

/** What `fn` throws; undefined when it returns. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createOpenAiProvider: request shape', () => {
  it('POSTs the model, messages and sampling settings to /chat/completions with a bearer key', async () => {
    const { url, requests } = await serve();
    const llm = createOpenAiProvider({ baseUrl: `${url}/`, apiKey: KEY, model: 'gpt-test', headers: { 'X-Extra': 'yes' } });

    const reply = await llm.complete({ messages: QUESTION, temperature: 0.2, maxTokens: 50 });

    expect(reply).toBe(FAKE_COMPLETION_TEXT);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-extra']).toBe('yes');
    expect(request?.body).toEqual({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'What colour was the bike?' }],
      temperature: 0.2,
      max_tokens: 50,
    });
  });

  it('sends no Authorization header without a key, and temperature 0 by default', async () => {
    const { url, requests } = await serve();
    const llm = createOpenAiProvider({ baseUrl: url, model: 'local' });

    await llm.complete({ messages: QUESTION });

    expect(requests[0]?.headers.authorization).toBeUndefined();
    expect(requests[0]?.body).toEqual({ model: 'local', messages: QUESTION, temperature: 0 });
  });

  const withImage: LlmMessage[] = [
    { role: 'system', content: 'Answer from memory.' },
    {
      role: 'user',
      content: 'Which bike is this?',
      images: [{ url: 'data:image/png;base64,AAAA' }, { url: 'https://example.com/b.jpg', detail: 'high' }],
    },
  ];

  it('sends images as image_url content parts when vision is on', async () => {
    const { url, requests } = await serve();
    const llm = createOpenAiProvider({ baseUrl: url, model: 'vlm', vision: true });
    expect(llm.vision).toBe(true);

    await llm.complete({ messages: withImage });

    expect(requests[0]?.body).toMatchObject({
      messages: [
        { role: 'system', content: 'Answer from memory.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Which bike is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
            { type: 'image_url', image_url: { url: 'https://example.com/b.jpg', detail: 'high' } },
          ],
        },
      ],
    });
  });

  it('drops images for a text-only model', async () => {
    const { url, requests } = await serve();
    const llm = createOpenAiProvider({ baseUrl: url, model: 'text-only' });
    expect(llm.vision).toBe(false);

    await llm.complete({ messages: withImage });

    expect(requests[0]?.body).toMatchObject({
      messages: [
        { role: 'system', content: 'Answer from memory.' },
        { role: 'user', content: 'Which bike is this?' },
      ],
    });
    expect(requests[0]?.rawBody).not.toContain('image_url');
  });
});

describe('createOpenAiProvider: errors', () => {
  it('times out with LLM_TIMEOUT naming the limit when the server is too slow', async () => {
    const { url } = await serve(() => ({ delayMs: 2_000 }));
    const llm = createOpenAiProvider({ baseUrl: url, model: 'm', timeoutMs: 200 });

    const started = Date.now();
    const error = await rejectionOf(llm.complete({ messages: QUESTION }));

    expect(error.code).toBe('LLM_TIMEOUT');
    expect(error.message).toContain('200 ms');
    expect(error.status).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('reports a 500 as LLM_HTTP with the status and the server message', async () => {
    const { url } = await serve(() => ({ status: 500, body: { error: { message: 'The engine overheated', type: 'server_error' } } }));
    const llm = createOpenAiProvider({ baseUrl: url, model: 'm' });

    const error = await rejectionOf(llm.complete({ messages: QUESTION }));

    expect(error.code).toBe('LLM_HTTP');
    expect(error.status).toBe(500);
    expect(error.message).toContain('500');
    expect(error.message).toContain('The engine overheated');
  });

  it('cuts a long error body to a short excerpt', async () => {
    const { url } = await serve(() => ({ status: 502, body: `<html>${'x'.repeat(5_000)}</html>` }));
    const llm = createOpenAiProvider({ baseUrl: url, model: 'm' });

    const error = await rejectionOf(llm.complete({ messages: QUESTION }));

    expect(error.status).toBe(502);
    expect(error.message.length).toBeLessThan(600);
  });

  it('reports a 400 about the context window as LLM_CONTEXT_LENGTH', async () => {
    const { url } = await serve(() => ({
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
          code: 'context_length_exceeded',
        },
      },
    }));
    const llm = createOpenAiProvider({ baseUrl: url, model: 'm' });

    const error = await rejectionOf(llm.complete({ messages: QUESTION }));

    expect(error.code).toBe('LLM_CONTEXT_LENGTH');
    expect(error.status).toBe(400);
  });

  it('keeps a 400 about something else as LLM_HTTP', async () => {
    const { url } = await serve(() => ({ status: 400, body: { error: { message: 'Unknown model "m"' } } }));
    const llm = createOpenAiProvider({ baseUrl: url, model: 'm' });

    const error = await rejectionOf(llm.complete({ messages: QUESTION }));

    expect(error.code).toBe('LLM_HTTP');
    expect(error.message).toContain('Unknown model');
  });

  it('rejects a reply that is not JSON with LLM_MALFORMED', async () => {
    const { url } = await serve(() => ({ body: 'Hello from a proxy login page', headers: { 'content-type': 'text/html' } }));
    const llm = createOpenAiProvider({ baseUrl: url, model: 'm' });

    await expect(llm.complete({ messages: QUESTION })).rejects.toMatchObject({ code: 'LLM_MALFORMED' });
  });

  it('rejects JSON without choices[0].message.content text with LLM_MALFORMED', async () => {
    for (const body of [{ object: 'list', data: [] }, { choices: [] }, { choices: [{ message: { content: null } }] }]) {
      const current = await serve(() => ({ body }));
      const llm = createOpenAiProvider({ baseUrl: current.url, model: 'm' });
      await expect(llm.complete({ messages: QUESTION })).rejects.toMatchObject({ code: 'LLM_MALFORMED' });
      await current.close();
      server = undefined;
    }
  });

  it('reports an unreachable server as LLM_HTTP with the network cause', async () => {
    const { url } = await serve();
    await server?.close();
    server = undefined;
    const llm = createOpenAiProvider({ baseUrl: url, apiKey: KEY, model: 'm' });

    const error = await rejectionOf(llm.complete({ messages: QUESTION }));

    expect(error.code).toBe('LLM_HTTP');
    expect(error.status).toBeUndefined();
    expect(error.cause).toBeDefined();
    expect(error.message).not.toContain(KEY);
  });

  it('never puts the API key in an error message, even when the server echoes it', async () => {
    const { url } = await serve(() => ({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } }));
    const llm = createOpenAiProvider({ baseUrl: url, apiKey: KEY, model: 'm' });

    const error = await rejectionOf(llm.complete({ messages: QUESTION }));

    expect(error.status).toBe(401);
    expect(error.message).not.toContain(KEY);
    expect(error.message).toContain('[redacted]');
    expect(String(error.stack)).not.toContain(KEY);
  });

  it('honours the caller\'s AbortSignal', async () => {
    const { url } = await serve(() => ({ delayMs: 2_000 }));
    const llm = createOpenAiProvider({ baseUrl: url, model: 'm' });
    const controller = new AbortController();
    const reason = new Error('user pressed stop');

    const pending = llm.complete({ messages: QUESTION, signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);

    await expect(pending).rejects.toBe(reason);
  });

  it('refuses at once when the signal is already aborted, without calling the server', async () => {
    const { url, requests } = await serve();
    const llm = createOpenAiProvider({ baseUrl: url, model: 'm' });

    await expect(llm.complete({ messages: QUESTION, signal: AbortSignal.abort() })).rejects.toThrow();
    expect(requests).toHaveLength(0);
  });
});

describe('createOpenAiProvider: options', () => {
  it('rejects a base URL that is not http(s) and a non-positive timeout', () => {
    expect(() => createOpenAiProvider({ baseUrl: 'api.openai.com', model: 'm' })).toThrow(/baseUrl/);
    expect(() => createOpenAiProvider({ baseUrl: 'http://x/v1', model: 'm', timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(errorCode(thrownBy(() => createOpenAiProvider({ baseUrl: 'http://x/v1', model: '' })))).toBe('INVALID_INPUT');
  });

  it('uses an injected fetch', async () => {
    const seen: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      seen.push(String(input));
      return new Response(JSON.stringify(completionBody('from injected fetch')), { status: 200 });
    };
    const llm = createOpenAiProvider({ baseUrl: 'https://llm.invalid/v1', model: 'm', fetch: fakeFetch });

    await expect(llm.complete({ messages: QUESTION })).resolves.toBe('from injected fetch');
    expect(seen).toEqual(['https://llm.invalid/v1/chat/completions']);
  });
});
