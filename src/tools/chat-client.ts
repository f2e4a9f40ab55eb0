/**
 * A small chat-completions client that speaks tool calls, for the agent loop: the `LlmProvider` port
 * is text-in/text-out and has no tools. Errors are the same typed `LlmError`s as the provider's.
 */
import { LlmError } from '../errors.js';
import { httpError, redact } from '../llm/openai-errors.js';
import { excerpt, isRecord, type OpenAiContentPart } from '../llm/openai-wire.js';
import type { NormalizedOpenAiProviderOptions } from '../llm/openai.js';
import type { ToolDefinition } from './definitions.js';

/** A tool call as the model sends it; `arguments` is a JSON string. */
export interface WireToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** A chat message, tool messages included. */
export type WireMessage =
  | { readonly role: 'system' | 'user'; readonly content: string | readonly OpenAiContentPart[] }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: readonly WireToolCall[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

/** The assistant's reply: text, tool calls, or both. */
export interface AssistantReply {
  readonly content: string | null;
  readonly toolCalls: readonly WireToolCall[];
}

/** One request with tools. */
export interface ToolChatRequest {
  readonly messages: readonly WireMessage[];
  readonly tools: readonly ToolDefinition[];
  /** `none` forces a text answer. */
  readonly toolChoice: 'auto' | 'none';
  readonly signal?: AbortSignal;
}

/**
 * POSTs to `/chat/completions` with `tools` and `tool_choice`, and reads `choices[0].message`.
 * Rejects with `LLM_HTTP`, `LLM_CONTEXT_LENGTH`, `LLM_TIMEOUT` or `LLM_MALFORMED`; with the caller's
 * abort reason when `signal` aborts.
 */
export async function chatWithTools(settings: NormalizedOpenAiProviderOptions, request: ToolChatRequest): Promise<AssistantReply> {
  request.signal?.throwIfAborted();
  const headers: Record<string, string> = { ...settings.headers, 'Content-Type': 'application/json' };
  if (settings.apiKey !== undefined) headers.Authorization = `Bearer ${settings.apiKey}`;
  const body = JSON.stringify({ model: settings.model, messages: request.messages, tools: request.tools, tool_choice: request.toolChoice, temperature: 0 });

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, settings.timeoutMs);
  const onAbort = () => controller.abort(request.signal?.reason);
  request.signal?.addEventListener('abort', onAbort, { once: true });
  const fail = (error: unknown): unknown => {
    if (timedOut) {
      return new LlmError('LLM_TIMEOUT', `The LLM server at ${settings.endpoint} did not answer within ${settings.timeoutMs} ms; raise \`timeoutMs\` or use a faster model.`, { cause: error });
    }
    if (request.signal?.aborted) return request.signal.reason;
    const reason = redact(error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error), settings.apiKey);
    return new LlmError('LLM_HTTP', `Could not reach the LLM server at ${settings.endpoint} (${reason}); check the base URL, that the server is running, and CORS.`, { cause: error });
  };
  try {
    let text: string;
    let response: Response;
    try {
      response = await settings.fetch(settings.endpoint, { method: 'POST', headers, body, signal: controller.signal });
      text = await response.text();
    } catch (error) {
      throw fail(error);
    }
    if (!response.ok) throw httpError(response.status, text, settings.endpoint, settings.apiKey);
    return readAssistantReply(text);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
  }
}

/** Reads `choices[0].message` (text and/or `tool_calls`) from a reply body; `LLM_MALFORMED` otherwise. */
export function readAssistantReply(body: string): AssistantReply {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new LlmError('LLM_MALFORMED', `The LLM server's reply is not JSON (starts with ${JSON.stringify(excerpt(body, 80))}); check the base URL.`, { cause: error });
  }
  const choice = isRecord(parsed) && Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
  const malformed = (what: string) =>
    new LlmError('LLM_MALFORMED', `The LLM server replied with ${what} (got ${JSON.stringify(excerpt(body, 120))}); check that the model supports tool calling.`);
  if (!message) throw malformed('no `choices[0].message`');
  const content = typeof message.content === 'string' ? message.content : null;
  const rawCalls = message.tool_calls === undefined || message.tool_calls === null ? [] : message.tool_calls;
  if (!Array.isArray(rawCalls)) throw malformed('`tool_calls` that is not a list');
  const toolCalls = rawCalls.map((call): WireToolCall => {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
    if (!isRecord(call) || typeof call.id !== 'string' || !fn || typeof fn.name !== 'string') throw malformed('a tool call without id or function name');
    return { id: call.id, type: 'function', function: { name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}) } };
  });
  if (content === null && toolCalls.length === 0) throw malformed('neither text nor tool calls');
  return { content, toolCalls };
}
