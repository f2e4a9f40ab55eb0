/** A language-model middleware that retrieves from memory before each call and adds what it found. */
import type { LanguageModelMiddleware } from 'ai';
import type { ImageInput, Memory, RetrievalOptions, RetrievalResult } from 'vmem';
import { imageFromDataUrl } from 'vmem/tools';
// Not (yet) a public export of `vmem`: the block formatter answers use.
import { formatContext } from '../../llm/format-context.js';

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type PromptMessage = CallOptions['prompt'][number];

/** Options of `memoryMiddleware`. */
export interface MemoryMiddlewareOptions {
  /** Options of each `retrieve`. @default the memory's defaults */
  readonly retrieval?: RetrievalOptions;
  /** Time zone the context's dates are written in. @default 'UTC' */
  readonly timeZone?: string;
  /**
   * Longest question text sent to retrieval, in characters; the rest of a long message (a pasted
   * document) is cut off rather than refused.
   * @default 2000
   */
  readonly maxQueryChars?: number;
  /** Called with each retrieval, e.g. to show the user which memories were used. @default undefined */
  readonly onRetrieval?: (result: RetrievalResult) => void;
}

/** The line that introduces the memory context in the system message the middleware adds. */
export const MEMORY_CONTEXT_HEADER =
  "Relevant excerpts of the user's earlier conversations, from long-term memory (they may be incomplete; do not invent what they do not say):";

/**
 * How the system message begins when retrieval judged that memory holds nothing relevant
 * (`relevant: false`); the closest excerpts, if any came back, follow it.
 */
export const MEMORY_NOTHING_FOUND =
  "Long-term memory holds nothing that seems to match the user's last message; do not claim to remember anything about it unless the closest excerpts below clearly say it:";

/**
 * Before every model call, retrieves with the last user message (its text, and its first picture
 * when it has one) and adds the retrieved rounds, as time-ordered blocks, in a system message after
 * the call's own system messages; when retrieval finds nothing relevant (`relevant: false`), that
 * message says so ({@link MEMORY_NOTHING_FOUND}) before the closest rounds. A call with the same last user message (the steps of one tool
 * loop) reuses the retrieval. Wrap a model with it: `wrapLanguageModel({ model, middleware })`.
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: memoryMiddleware(memory) });
 * const { text } = await generateText({ model, prompt: 'Where did my sister move?' });
 */
export function memoryMiddleware(memory: Pick<Memory, 'retrieve'>, options: MemoryMiddlewareOptions = {}): LanguageModelMiddleware {
  const maxQueryChars = options.maxQueryChars === undefined ? 2000 : options.maxQueryChars;
  let last: { key: string; context: string } | undefined;
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      const query = await lastUserQuery(params.prompt, maxQueryChars);
      if (!query) return params;
      const key = queryKey(query);
      if (last?.key !== key) {
        const result = await memory.retrieve(query, options.retrieval);
        options.onRetrieval?.(result);
        const excerpts = formatContext(result.blocks, options.timeZone === undefined ? {} : { timeZone: options.timeZone });
        const header = result.relevant ? MEMORY_CONTEXT_HEADER : MEMORY_NOTHING_FOUND;
        last = { key, context: result.blocks.length > 0 ? `${header}\n\n${excerpts}` : header };
      }
      const message: PromptMessage = { role: 'system', content: last.context };
      // Some providers take system messages only at the start, so it goes after the leading ones.
      const at = params.prompt.findIndex((candidate) => candidate.role !== 'system');
      const prompt = [...params.prompt];
      prompt.splice(at === -1 ? prompt.length : at, 0, message);
      return { ...params, prompt };
    },
  };
}

/** The last user message as a query: its text and its first inline picture; undefined when it has neither. */
async function lastUserQuery(prompt: CallOptions['prompt'], maxChars: number): Promise<{ text?: string; image?: ImageInput } | undefined> {
  const message = [...prompt].reverse().find((candidate) => candidate.role === 'user');
  if (message?.role !== 'user') return undefined;
  const text = message.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n')
    .trim()
    .slice(0, maxChars);
  const file = message.content.find((part) => part.type === 'file' && part.mediaType.startsWith('image/') && !(part.data instanceof URL));
  const image = file?.type === 'file' ? await imageOf(file.data, file.mediaType) : undefined;
  if (!text && !image) return undefined;
  return { ...(text ? { text } : {}), ...(image ? { image } : {}) };
}

/** Inline file data as an image; a URL is not fetched (the page may not be reachable from here). */
async function imageOf(data: Uint8Array | string | URL, mediaType: string): Promise<ImageInput | undefined> {
  if (data instanceof Uint8Array) return { bytes: data, mimeType: mediaType };
  if (typeof data === 'string') return imageFromDataUrl(data.startsWith('data:') ? data : `data:${mediaType};base64,${data}`);
  return undefined;
}

/** The question's text and an FNV-1a hash of its picture: the same question gets the same key. */
function queryKey(query: { text?: string; image?: ImageInput }): string {
  let hash = 0x811c9dc5;
  for (const byte of query.image?.bytes ?? []) hash = Math.imul(hash ^ byte, 0x01000193);
  return `${query.text ?? ''}\u0000${query.image?.bytes?.length ?? 0}:${hash >>> 0}`;
}
