/** Builds the LLM provider the settings ask for. */
import { VmemError, createNoneProvider, createOpenAiProvider, createWebLlmProvider, type LlmProvider, type ProgressCallback } from 'vmem';
import type { LlmSettings } from './settings.js';

/**
 * The provider for `settings`. OpenAI-compatible settings need a base URL and a model; the key is
 * optional (local servers) and goes only to that base URL.
 */
export function createLlm(settings: LlmSettings, onProgress?: ProgressCallback): LlmProvider {
  switch (settings.kind) {
    case 'none':
      return createNoneProvider();
    case 'openai':
      if (!settings.baseUrl || !settings.model) {
        throw new VmemError('INVALID_INPUT', 'Set the base URL and the model of the OpenAI-compatible endpoint in Settings, or choose "None".');
      }
      return createOpenAiProvider({
        baseUrl: settings.baseUrl,
        model: settings.model,
        vision: settings.vision,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      });
    case 'webllm':
      if (!settings.model) throw new VmemError('INVALID_INPUT', 'Choose a WebLLM model in Settings, or choose "None".');
      return createWebLlmProvider({ model: settings.model, ...(onProgress ? { onProgress } : {}) });
  }
}
