/** An image handed to a vision-capable model. */
export interface LlmImage {
  /** A `data:` URL (e.g. `data:image/jpeg;base64,…`) or an http(s) URL. */
  readonly url: string;
  /** OpenAI-style detail hint. @default 'low' */
  readonly detail?: 'low' | 'high' | 'auto';
}

export interface LlmMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
  /** Images attached to this message; only sent when the provider supports vision. */
  readonly images?: readonly LlmImage[];
}

export interface LlmRequest {
  readonly messages: readonly LlmMessage[];
  /** @default 0 */
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly signal?: AbortSignal;
}

/** The port every LLM sits behind: text in, text out, images in when `vision` is true. */
export interface LlmProvider {
  /** `none`, `openai-compatible`, `web-llm`… */
  readonly kind: string;
  /** False for the `none` provider: anchors fall back to the raw query and `answer` is refused. */
  readonly available: boolean;
  /** True when `complete` accepts images on messages. */
  readonly vision: boolean;
  /** Rejects with `LlmError` (HTTP, timeout, malformed reply, context length) or `VmemError('LLM_UNAVAILABLE')`. */
  complete(request: LlmRequest): Promise<string>;
}
