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

/** A function the model may call, described by a JSON Schema of its arguments object. */
export interface LlmTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** A call the model asked for; `arguments` is the JSON text it wrote. */
export interface LlmToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** A message of a tool-calling conversation: plain messages, the model's tool calls, and their results. */
export type LlmToolMessage =
  | LlmMessage
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls: readonly LlmToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string };

export interface LlmToolRequest extends Omit<LlmRequest, 'messages'> {
  readonly messages: readonly LlmToolMessage[];
  readonly tools: readonly LlmTool[];
  /** `none` forbids tool calls, so the model must answer in text. */
  readonly toolChoice: 'auto' | 'none';
}

/** The model's reply to a tool-calling request: text, tool calls, or both. */
export interface LlmToolReply {
  /** Empty when the model only called tools. */
  readonly content: string;
  readonly toolCalls: readonly LlmToolCall[];
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
  /**
   * Present when the model can call tools (the OpenAI-compatible provider); `runAgent` needs it.
   * Rejects like `complete`.
   */
  completeWithTools?(request: LlmToolRequest): Promise<LlmToolReply>;
}
