import { VmemError } from '../errors.js';
import type { LlmProvider } from './types.js';

/**
 * The provider used when no LLM is configured. Retrieval still works (anchors fall back to the raw
 * query); `complete` always rejects with `LLM_UNAVAILABLE`.
 * @example
 * const llm = createNoneProvider();
 * llm.available; // false
 */
export function createNoneProvider(): LlmProvider {
  return {
    kind: 'none',
    available: false,
    vision: false,
    complete: () =>
      Promise.reject(
        new VmemError(
          'LLM_UNAVAILABLE',
          'No LLM is configured, so this step cannot run. Pass `llm: createOpenAiProvider({ baseUrl, model, apiKey })` ' +
            'for an OpenAI-compatible server, or `llm: createWebLlmProvider({ model })` to run a model in the browser.',
        ),
      ),
  };
}
