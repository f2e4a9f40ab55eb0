/** Turns an OpenAI-compatible server's error response into a typed `LlmError`. */
import { LlmError } from '../errors.js';
import { excerpt, isRecord } from './openai-wire.js';

const EXCERPT_CHARS = 200;

// Phrasings servers use when the prompt does not fit: OpenAI, vLLM, llama.cpp, Ollama, LiteLLM.
const CONTEXT_LENGTH_PATTERN =
  /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|exceeds? the (?:model's )?(?:maximum|context)/i;

/**
 * The error for a non-2xx response. A 400/413 whose body says the prompt is too long becomes
 * `LLM_CONTEXT_LENGTH` (callers retry with less); everything else is `LLM_HTTP`.
 * `secret` (the API key) is scrubbed from the excerpt in case the server echoes it.
 */
export function httpError(status: number, body: string, url: string, secret?: string): LlmError {
  // Redact before cutting, so a key split by the cut cannot leak in part.
  const message = excerpt(redact(serverMessage(body), secret), EXCERPT_CHARS);
  if ((status === 400 || status === 413) && CONTEXT_LENGTH_PATTERN.test(body)) {
    return new LlmError(
      'LLM_CONTEXT_LENGTH',
      `The LLM server rejected the prompt as too long for the model's context (HTTP ${status}: "${message}"); ` +
        'send fewer images or less retrieved context.',
      { status },
    );
  }
  return new LlmError('LLM_HTTP', `The LLM server answered HTTP ${status} for POST ${url}: "${message}". ${hintFor(status)}`, {
    status,
  });
}

/** The server's own error text: OpenAI's `{error:{message}}`, `{error:"…"}`, `{message}`, or the raw body. */
function serverMessage(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body.trim() === '' ? '(empty body)' : body; // Not JSON: the raw text is the message.
  }
  if (isRecord(parsed)) {
    const error = parsed.error;
    if (isRecord(error) && typeof error.message === 'string') return error.message;
    if (typeof error === 'string') return error;
    if (typeof parsed.message === 'string') return parsed.message;
    if (typeof parsed.detail === 'string') return parsed.detail;
  }
  return body;
}

function hintFor(status: number): string {
  if (status === 401 || status === 403) return 'Check the API key and that it may use this model.';
  if (status === 404) return 'Check the base URL (it usually ends in /v1) and the model name.';
  if (status === 429) return 'The server is rate-limiting; wait and retry, or lower the request rate.';
  if (status >= 500) return 'The server failed; retry later.';
  return 'Check the request options (model, max tokens) against the server.';
}

/** Replaces every occurrence of `secret` in `text`. */
export function redact(text: string, secret: string | undefined): string {
  if (secret === undefined || secret === '') return text;
  return text.split(secret).join('[redacted]');
}
