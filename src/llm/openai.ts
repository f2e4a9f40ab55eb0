import { LlmError, VmemError } from '../errors.js';
import { httpError, redact } from './openai-errors.js';
import { readCompletionText, readToolReply, toOpenAiMessages, type OpenAiTool } from './openai-wire.js';
import type { LlmProvider, LlmRequest, LlmToolReply, LlmToolRequest } from './types.js';

/** Options of `createOpenAiProvider`. */
export interface OpenAiProviderOptions {
  /**
   * The API root; `/chat/completions` is appended. A trailing slash is fine.
   * @default (required)
   * @example 'https://api.openai.com/v1'
   * @example 'http://localhost:11434/v1'
   */
  readonly baseUrl: string;
  /**
   * Sent as `Authorization: Bearer …`; no header when absent (local servers). Never logged, and
   * scrubbed from error messages.
   * @default undefined
   */
  readonly apiKey?: string;
  /**
   * Model name the server knows.
   * @default (required)
   * @example 'gpt-4o-mini'
   */
  readonly model: string;
  /** Abort a call (request and reading the reply) after this many milliseconds. @default 60000 */
  readonly timeoutMs?: number;
  /**
   * True when the model accepts images. Only then are `LlmMessage.images` sent (as `image_url`
   * parts); a text-only provider drops them, so the caller decides whether to attach.
   * @default false
   */
  readonly vision?: boolean;
  /** The fetch to use (tests, proxies). @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * Extra request headers, e.g. `{ 'OpenAI-Organization': '…' }`. `Content-Type` is always JSON;
   * `Authorization` is replaced when `apiKey` is set.
   * @default {}
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** `OpenAiProviderOptions` with every default filled in. */
export interface NormalizedOpenAiProviderOptions {
  readonly endpoint: string;
  readonly apiKey: string | undefined;
  readonly model: string;
  readonly timeoutMs: number;
  readonly vision: boolean;
  readonly fetch: typeof globalThis.fetch;
  readonly headers: Readonly<Record<string, string>>;
}

/** Default of `OpenAiProviderOptions.timeoutMs`. */
export const DEFAULT_LLM_TIMEOUT_MS = 60_000;

/**
 * An LLM behind any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp, Ollama…).
 * `complete` rejects with `LlmError`: `LLM_HTTP` (non-2xx or network failure, with `status` when the
 * server answered), `LLM_CONTEXT_LENGTH`, `LLM_TIMEOUT` or `LLM_MALFORMED`. When the caller's
 * `signal` aborts, it rejects with the signal's reason. `completeWithTools` sends `tools` and
 * `tool_choice` (the model must support tool calling) and rejects the same way.
 * @example
 * const llm = createOpenAiProvider({ baseUrl: 'https://api.openai.com/v1', apiKey, model: 'gpt-4o-mini', vision: true });
 * const text = await llm.complete({ messages: [{ role: 'user', content: 'Hi' }] });
 */
export function createOpenAiProvider(options: OpenAiProviderOptions): LlmProvider {
  const settings = normalizeOpenAiProviderOptions(options);
  return {
    kind: 'openai-compatible',
    available: true,
    vision: settings.vision,
    complete: (request) => completeOnce(settings, request),
    completeWithTools: (request) => completeWithToolsOnce(settings, request),
  };
}

/** Validates options and fills in defaults. Rejects bad values with `INVALID_INPUT`. */
export function normalizeOpenAiProviderOptions(options: OpenAiProviderOptions): NormalizedOpenAiProviderOptions {
  if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl)) {
    throw new VmemError('INVALID_INPUT', `baseUrl must be an http(s) URL such as 'https://api.openai.com/v1', got ${JSON.stringify(options.baseUrl)}.`);
  }
  if (typeof options.model !== 'string' || options.model.trim() === '') {
    throw new VmemError('INVALID_INPUT', 'model must name the model to call, e.g. \'gpt-4o-mini\'.');
  }
  const timeoutMs = options.timeoutMs === undefined ? DEFAULT_LLM_TIMEOUT_MS : options.timeoutMs;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new VmemError('INVALID_INPUT', `timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}.`);
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') {
    throw new VmemError('INVALID_INPUT', 'No fetch is available in this environment; pass `fetch` in the options.');
  }
  return {
    endpoint: `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`,
    apiKey: options.apiKey === '' ? undefined : options.apiKey,
    model: options.model,
    timeoutMs,
    vision: options.vision ?? false,
    // Called through a plain function: browsers throw "Illegal invocation" when window.fetch runs as a
    // method of another object, as it would as `settings.fetch(…)`.
    fetch: (input, init) => fetchImpl(input, init),
    headers: options.headers ?? {},
  };
}

async function completeOnce(settings: NormalizedOpenAiProviderOptions, request: LlmRequest): Promise<string> {
  const text = await postChat(settings, request, {});
  return readCompletionText(text);
}

async function completeWithToolsOnce(settings: NormalizedOpenAiProviderOptions, request: LlmToolRequest): Promise<LlmToolReply> {
  const tools = request.tools.map((tool): OpenAiTool => ({ type: 'function', function: tool }));
  const text = await postChat(settings, request, { tools, tool_choice: request.toolChoice });
  return readToolReply(text);
}

/** POSTs one chat-completions request and returns the reply body of a 2xx answer. */
async function postChat(
  settings: NormalizedOpenAiProviderOptions,
  request: LlmRequest | LlmToolRequest,
  extra: Readonly<Record<string, unknown>>,
): Promise<string> {
  request.signal?.throwIfAborted();
  const body = JSON.stringify({
    model: settings.model,
    messages: toOpenAiMessages(request.messages, settings.vision),
    temperature: request.temperature === undefined ? 0 : request.temperature,
    max_tokens: request.maxTokens, // Dropped by JSON.stringify when undefined: the server's default applies.
    ...extra,
  });
  const headers: Record<string, string> = { ...settings.headers, 'Content-Type': 'application/json' };
  if (settings.apiKey !== undefined) headers.Authorization = `Bearer ${settings.apiKey}`;

  const deadline = linkedAbort(settings.timeoutMs, request.signal);
  try {
    let response: Response;
    try {
      response = await settings.fetch(settings.endpoint, { method: 'POST', headers, body, signal: deadline.signal });
    } catch (error) {
      throw deadline.translate(error, settings) ?? networkError(error, settings);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw deadline.translate(error, settings) ?? networkError(error, settings);
    }
    if (!response.ok) throw httpError(response.status, text, settings.endpoint, settings.apiKey);
    return text;
  } finally {
    deadline.dispose();
  }
}

/** One AbortSignal that fires on the timeout or on the caller's signal, and can tell which fired. */
function linkedAbort(timeoutMs: number, callerSignal: AbortSignal | undefined) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    /** The error to throw instead of a fetch failure caused by our abort; undefined when not aborted. */
    translate(error: unknown, settings: NormalizedOpenAiProviderOptions): unknown {
      if (timedOut) {
        return new LlmError(
          'LLM_TIMEOUT',
          `The LLM server at ${settings.endpoint} did not answer within ${settings.timeoutMs} ms; ` +
            'raise `timeoutMs` or use a faster model.',
          { cause: error },
        );
      }
      // The caller cancelled: hand back their reason, as fetch itself would.
      if (callerSignal?.aborted === true) return callerSignal.reason;
      return undefined;
    },
    dispose() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

function networkError(error: unknown, settings: NormalizedOpenAiProviderOptions): LlmError {
  const reason = redact(error instanceof Error ? describeCause(error) : String(error), settings.apiKey);
  return new LlmError(
    'LLM_HTTP',
    `Could not reach the LLM server at ${settings.endpoint} (${reason}); check the base URL, that the server is ` +
      'running, and that it allows cross-origin requests from this page (CORS).',
    { cause: error },
  );
}

// Node's fetch says only "fetch failed"; the useful part (ECONNREFUSED…) is in its cause.
function describeCause(error: Error): string {
  const inner = error.cause;
  return inner instanceof Error && inner.message !== '' ? `${error.message}: ${inner.message}` : error.message;
}
