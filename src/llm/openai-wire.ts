/** The OpenAI chat-completions wire format: what we send and how we read the reply. */
import { LlmError } from '../errors.js';
import type { LlmMessage, LlmTool, LlmToolCall, LlmToolMessage, LlmToolReply } from './types.js';

/** A content part of an OpenAI multimodal message. */
export type OpenAiContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string; readonly detail: 'low' | 'high' | 'auto' } };

/** A tool call as the API writes it. */
interface OpenAiToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** A message as the OpenAI API takes it. */
export type OpenAiMessage =
  | { readonly role: LlmMessage['role']; readonly content: string | readonly OpenAiContentPart[] }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls: readonly OpenAiToolCall[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

/** A tool as the `tools` array takes it. */
export interface OpenAiTool {
  readonly type: 'function';
  readonly function: LlmTool;
}

/**
 * Converts our messages to the wire format. Images become `image_url` parts only when `vision` is
 * true; a text-only provider drops them, because a text model rejects image parts outright.
 */
export function toOpenAiMessages(messages: readonly LlmToolMessage[], vision: boolean): OpenAiMessage[] {
  return messages.map((message): OpenAiMessage => {
    if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    if ('toolCalls' in message) {
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
      };
    }
    const images = message.images ?? [];
    if (!vision || images.length === 0) return { role: message.role, content: message.content };
    const parts: OpenAiContentPart[] = [{ type: 'text', text: message.content }];
    for (const image of images) {
      parts.push({ type: 'image_url', image_url: { url: image.url, detail: image.detail ?? 'low' } });
    }
    return { role: message.role, content: parts };
  });
}

/**
 * Reads `choices[0].message.content` from a reply body.
 * Rejects with `LLM_MALFORMED` when the body is not JSON or holds no text answer.
 */
export function readCompletionText(body: string): string {
  const content = firstChoiceMessage(parseReply(body))?.content;
  if (typeof content !== 'string') {
    throw new LlmError(
      'LLM_MALFORMED',
      'The LLM server replied without `choices[0].message.content` text ' +
        `(got ${JSON.stringify(excerpt(body, 120))}); check that the server speaks the OpenAI chat-completions format.`,
    );
  }
  return content;
}

/**
 * Reads `choices[0].message` (text and/or `tool_calls`) from a reply to a request with tools.
 * Rejects with `LLM_MALFORMED` when the body is not JSON or holds neither text nor tool calls.
 */
export function readToolReply(body: string): LlmToolReply {
  const message = firstChoiceMessage(parseReply(body));
  const malformed = (what: string) =>
    new LlmError('LLM_MALFORMED', `The LLM server replied with ${what} (got ${JSON.stringify(excerpt(body, 120))}); check that the model supports tool calling.`);
  if (!message) throw malformed('no `choices[0].message`');
  const content = typeof message.content === 'string' ? message.content : '';
  const rawCalls = message.tool_calls === undefined || message.tool_calls === null ? [] : message.tool_calls;
  if (!Array.isArray(rawCalls)) throw malformed('`tool_calls` that is not a list');
  const toolCalls = rawCalls.map((call): LlmToolCall => {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
    if (!isRecord(call) || typeof call.id !== 'string' || !fn || typeof fn.name !== 'string') throw malformed('a tool call without id or function name');
    return { id: call.id, name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}) };
  });
  if (content.trim() === '' && toolCalls.length === 0) throw malformed('neither text nor tool calls');
  return { content, toolCalls };
}

function parseReply(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new LlmError(
      'LLM_MALFORMED',
      `The LLM server's reply is not JSON (starts with ${JSON.stringify(excerpt(body, 80))}); ` +
        'check that the base URL points at an OpenAI-compatible /v1 endpoint.',
      { cause: error },
    );
  }
}

function firstChoiceMessage(parsed: unknown): Record<string, unknown> | undefined {
  if (!isRecord(parsed) || !Array.isArray(parsed.choices)) return undefined;
  const choice: unknown = parsed.choices[0];
  return isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
}

/** True for a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collapses whitespace and cuts `text` to at most `max` characters, marking the cut with `…`. */
export function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
