import type { AnswerOptions, AnswerResult, AttachSkipReason } from './types.js';
import { errorCode, VmemError } from '../errors.js';
import { assertMaxImages, orderAttachCandidates, prepareImages, type PreparedImage } from '../images/attach.js';
import type { ImageResizer } from '../images/types.js';
import { needsVisualDetail } from '../images/visual-question.js';
import { answerPrompt, conflictPrompt, formatContext, formatDate, imageNote, parseVerdict, queryImageNote } from '../llm/prompts.js';
import type { LlmMessage, LlmProvider } from '../llm/types.js';
import type { RetrievalOptions } from '../options.js';
import type { StoredImage } from '../storage/types.js';
import { imagesOf, type Query, type RetrievalResult } from '../types.js';

/** What answering needs from a memory. */
export interface AnswerDeps {
  readonly llm: LlmProvider;
  readonly retrieve: (query: Query, options: RetrievalOptions) => Promise<RetrievalResult>;
  readonly getImage: (imageId: string) => Promise<StoredImage | undefined>;
  /**
   * Shrinks pictures before they go to a vision model (longest side 768 px, JPEG quality 80).
   * Without it no picture is attached and the result says `attachSkipped: 'no-resizer'`.
   * @default undefined
   */
  readonly imageResizer?: ImageResizer;
}

/** Default of `AnswerOptions.maxImages`. */
export const DEFAULT_MAX_IMAGES = 5;

/**
 * Retrieves, then asks the LLM with our answer prompt (or the Yes/No conflict prompt).
 *
 * With a vision provider, the pictures of the retrieved rounds and the top image matches go along
 * (at most `maxImages`, each at most 768 px, JPEG, `detail: 'low'`) when the question needs visual
 * detail (`needsVisualDetail`, a keyword rule, not a model decision) or the retrieval targets an
 * image. If the server rejects the call as too long for its context, it is retried with half as
 * many pictures, down to none; `degraded` says so. The retrieval is always returned.
 */
export async function answerWithMemory(deps: AnswerDeps, query: Query, options: AnswerOptions): Promise<AnswerResult> {
  if (!deps.llm.available) {
    throw new VmemError('LLM_UNAVAILABLE', 'Answering needs an LLM; configure an OpenAI-compatible or WebLLM provider. Retrieval works without one.');
  }
  const maxImages = options.maxImages === undefined ? DEFAULT_MAX_IMAGES : options.maxImages;
  assertMaxImages(maxImages);
  const { attachImages: _attachImages, maxImages: _maxImages, signal: _signal, ...retrievalOptions } = options;
  const retrieval = await deps.retrieve(query, retrievalOptions);
  const question = query.text?.trim() || 'What does my memory say about the attached picture?';
  const context = formatContext(retrieval.blocks);

  const skipReason = whyNoImages(deps, options, maxImages, question, retrieval);
  const { prepared, skipped } =
    skipReason === undefined
      ? await prepareImages(orderAttachCandidates(retrieval), {
          getImage: deps.getImage,
          resizer: deps.imageResizer!,
          max: maxImages,
          ...(options.signal ? { signal: options.signal } : {}),
        })
      : { prepared: [], skipped: [] };

  const attachedNote = query.image ? attachedImageNote(query.image, retrieval) : '';
  const ask = (images: readonly PreparedImage[]) =>
    deps.llm.complete({ messages: buildMessages(retrieval, question, context, attachedNote, images), temperature: 0, ...(options.signal ? { signal: options.signal } : {}) });

  let count = prepared.length;
  let reply: string;
  for (;;) {
    try {
      reply = await ask(prepared.slice(0, count));
      break;
    } catch (error) {
      // Only the pictures are ours to drop; a text-only call that is too long fails as before.
      if (errorCode(error) !== 'LLM_CONTEXT_LENGTH' || count === 0) throw error;
      count = Math.floor(count / 2);
    }
  }
  const answer = retrieval.route.conflict ? (parseVerdict(reply) ?? reply.trim()) : reply.trim();
  const degraded = count === prepared.length ? undefined : count === 0 ? 'text-only' : 'fewer-images';
  const attachSkipped = skipReason ?? (prepared.length === 0 ? 'no-images' : undefined);
  return {
    answer,
    retrieval,
    attachedImages: prepared.slice(0, count).map((item) => item.ref),
    ...(degraded ? { degraded } : {}),
    ...(attachSkipped ? { attachSkipped } : {}),
    skippedImages: skipped,
  };
}

function whyNoImages(deps: AnswerDeps, options: AnswerOptions, maxImages: number, question: string, retrieval: RetrievalResult): AttachSkipReason | undefined {
  if (options.attachImages === false || maxImages === 0) return 'disabled';
  if (!deps.llm.vision) return 'text-only-provider';
  if (retrieval.route.target !== 'image' && !needsVisualDetail(question)) return 'not-visual';
  if (!deps.imageResizer) return 'no-resizer';
  return undefined;
}

/**
 * What the picture the question came with shows (its caption, or the keywords a vision LLM read off
 * it) and the stored picture the image lane matched best.
 */
function attachedImageNote(image: NonNullable<Query['image']>, retrieval: RetrievalResult): string {
  const shows = image.caption?.trim() || retrieval.imageKeywords?.join(', ');
  const matched = retrieval.imageMatch;
  const round = matched && retrieval.blocks.flatMap((block) => block.rounds).find((candidate) => candidate.id === matched.roundId);
  const stored = round && imagesOf(round).find((ref) => ref.id === matched!.imageId);
  return queryImageNote({
    ...(shows ? { shows } : {}),
    ...(matched
      ? { match: { imageId: matched.imageId, ...(stored?.caption ? { caption: stored.caption } : {}), ...(round ? { date: formatDate(round.timestamp) } : {}) } }
      : {}),
  });
}

/** The prompt, with the pictures on the question message and a note tying each to its image id. */
function buildMessages(retrieval: RetrievalResult, question: string, context: string, attachedNote: string, images: readonly PreparedImage[]): LlmMessage[] {
  const note = imageNote(
    images.length,
    images.map((item) => item.ref.id),
  );
  if (!retrieval.route.conflict) {
    return answerPrompt({ question, context, today: Date.now(), queryImageNote: attachedNote, imageNote: note, images: images.map((item) => item.image) });
  }
  const messages = conflictPrompt({ question, context });
  const notes = [attachedNote, note].filter((text) => text !== '').join('\n\n');
  if (notes === '' && images.length === 0) return messages;
  // The conflict prompt has no image slot: the notes and pictures go on its (last) user message.
  return messages.map((message, index) =>
    index === messages.length - 1
      ? { ...message, content: notes ? `${message.content}\n\n${notes}` : message.content, ...(images.length ? { images: images.map((item) => item.image) } : {}) }
      : message,
  );
}
