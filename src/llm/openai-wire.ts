/** The OpenAI chat-completions wire format: what we send and how we read the reply. */
import { LlmError } from '../errors.js';
import type { LlmMessage } from './types.js';

/** A content part of an OpenAI multimodal message. */
export type OpenAiContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string; readonly detail: 'low' | 'high' | 'auto' } };

/** A message as the OpenAI API takes it. */
export interface OpenAiMessage {
  readonly role: LlmMessage['role'];
  readonly content: string | readonly OpenAiContentPart[];
}

/**
 * Converts our messages to the wire format. Images become `image_url` parts only when `vision` is
 * true; a text-only provider drops them, because a text model rejects image parts outright.
 */
export function toOpenAiMessages(messages: readonly LlmMessage[], vision: boolean): OpenAiMessage[] {
  return messages.map((message) => {
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
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new LlmError(
      'LLM_MALFORMED',
      `The LLM server's reply is not JSON (starts with ${JSON.stringify(excerpt(body, 80))}); ` +
        'check that the base URL points at an OpenAI-compatible /v1 endpoint.',
      { cause: error },
    );
  }
  const content = firstChoiceContent(parsed);
  if (typeof content !== 'string') {
    throw new LlmError(
      'LLM_MALFORMED',
      'The LLM server replied without `choices[0].message.content` text ' +
        `(got ${JSON.stringify(excerpt(body, 120))}); check that the server speaks the OpenAI chat-completions format.`,
    );
  }
  return content;
}

function firstChoiceContent(parsed: unknown): unknown {
  if (!isRecord(parsed) || !Array.isArray(parsed.choices)) return undefined;
  const choice: unknown = parsed.choices[0];
  if (!isRecord(choice) || !isRecord(choice.message)) return undefined;
  return choice.message.content;
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
