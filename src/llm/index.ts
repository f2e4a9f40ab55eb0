/** The LLM port: providers behind `LlmProvider`, and our prompts. Browser-safe (no Node imports). */
export type { LlmImage, LlmMessage, LlmProvider, LlmRequest } from './types.js';
export { createNoneProvider } from './none.js';
export {
  DEFAULT_LLM_TIMEOUT_MS,
  createOpenAiProvider,
  normalizeOpenAiProviderOptions,
  type NormalizedOpenAiProviderOptions,
  type OpenAiProviderOptions,
} from './openai.js';
export {
  createWebLlmProvider,
  type WebLlmChatRequest,
  type WebLlmEngine,
  type WebLlmProvider,
  type WebLlmProviderOptions,
} from './web-llm.js';
export {
  EMPTY_CONTEXT,
  answerPrompt,
  captionAnchorPrompt,
  cleanCaption,
  conflictPrompt,
  formatContext,
  formatDate,
  formatDateTime,
  imageKeywordsPrompt,
  imageNote,
  parseKeywords,
  parseVerdict,
  queryImageNote,
  type AnswerPromptInput,
  type ConflictPromptInput,
  type QueryImageNoteInput,
  type Verdict,
  type FormatContextOptions,
} from './prompts.js';
