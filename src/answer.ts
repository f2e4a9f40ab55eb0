import type { AnswerOptions, AnswerResult } from './api.js';
import { VmemError } from './errors.js';
import { answerPrompt, conflictPrompt, formatContext, parseYesNo } from './llm/prompts.js';
import type { LlmProvider } from './llm/types.js';
import type { RetrievalOptions } from './options.js';
import type { StoredImage } from './storage/types.js';
import type { Query, RetrievalResult } from './types.js';

/** What answering needs from a memory. */
export interface AnswerDeps {
  readonly llm: LlmProvider;
  readonly retrieve: (query: Query, options: RetrievalOptions) => Promise<RetrievalResult>;
  readonly getImage: (imageId: string) => Promise<StoredImage | undefined>;
}

/** Retrieves, then asks the LLM with our answer prompt (or the Yes/No conflict prompt). */
export async function answerWithMemory(deps: AnswerDeps, query: Query, options: AnswerOptions): Promise<AnswerResult> {
  if (!deps.llm.available) {
    throw new VmemError('LLM_UNAVAILABLE', 'Answering needs an LLM; configure an OpenAI-compatible or WebLLM provider. Retrieval works without one.');
  }
  const retrieval = await deps.retrieve(query, options);
  const question = query.text?.trim() || 'What does my memory say about the attached picture?';
  const context = formatContext(retrieval.blocks);
  const messages = retrieval.route.conflict ? conflictPrompt({ statement: question, context }) : answerPrompt({ question, context, today: Date.now() });
  const reply = await deps.llm.complete({ messages, temperature: 0, ...(options.signal ? { signal: options.signal } : {}) });
  const answer = retrieval.route.conflict ? (parseYesNo(reply) ?? reply.trim()) : reply.trim();
  return { answer, retrieval, attachedImages: [] };
}
