/** Builds the LLM provider the settings ask for. */
import { VmemError, createNoneProvider, createOpenAiProvider, type LlmProvider, type ProgressCallback } from 'vmem';
import { createWebLlmProvider } from 'vmem/web-llm';
import { keyMissing, type LlmSettings } from './settings.js';

/**
 * The provider for `settings`. OpenAI-compatible settings need a base URL and a model; the key is
 * optional (local servers) and goes only to that base URL. An endpoint whose key this tab no longer
 * has (not remembered across a reload) gets a provider that refuses every call, so no request goes
 * out without the key.
 */
export function createLlm(settings: LlmSettings, onProgress?: ProgressCallback): LlmProvider {
  switch (settings.kind) {
    case 'none':
      return createNoneProvider();
    case 'openai':
      if (!settings.baseUrl || !settings.model) {
        throw new VmemError('INVALID_INPUT', 'Set the base URL and the model of the OpenAI-compatible endpoint in Settings, or choose "None".');
      }
      if (keyMissing(settings)) return keylessProvider(settings.baseUrl);
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

/** Why an endpoint whose key this tab lacks is not called, and what to do. */
export function missingKeyError(baseUrl: string): VmemError {
  return new VmemError(
    'LLM_UNAVAILABLE',
    `The API key for ${baseUrl} was not remembered on this device, so nothing was sent. Enter it again in Settings and apply (tick "Remember the key" to keep it across visits).`,
  );
}

/** Unavailable until the key is entered again: retrieval skips it, and any call is refused. */
function keylessProvider(baseUrl: string): LlmProvider {
  return { kind: 'openai-compatible', available: false, vision: false, complete: () => Promise.reject(missingKeyError(baseUrl)) };
}
