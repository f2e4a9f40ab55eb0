/**
 * Our prompts: each function returns the messages for one LLM step, and the parsers read the replies.
 * Replies from small models are messy, so every parser is lenient about wrapping and punctuation.
 */
import { VmemError } from '../errors.js';
import { formatDate } from './format-context.js';
import type { LlmImage, LlmMessage } from './types.js';

export { EMPTY_CONTEXT, formatContext, formatDate, formatDateTime, type FormatContextOptions } from './format-context.js';

/**
 * Asks for the caption the sought picture would probably have, for text→image retrieval: the
 * caption is embedded and matched against stored images and captions.
 * @example
 * const caption = cleanCaption(await llm.complete({ messages: captionAnchorPrompt('Show me the cake from my birthday') }));
 */
export function captionAnchorPrompt(question: string): LlmMessage[] {
  return [
    {
      role: 'system',
      content: 'You write short, literal captions for photos, the way an image-description service would.',
    },
    {
      role: 'user',
      content:
        'A user is looking through the pictures in their chat history and asks:\n' +
        `"${question.trim()}"\n\n` +
        'Imagine the picture they want and write its caption in one or two sentences. Describe what can be ' +
        'seen in it: the main things and people, the setting, colours, and any written text, using concrete ' +
        'nouns. Do not answer the question, do not hedge, and do not add any introduction: reply with the caption only.',
    },
  ];
}

/** The caption in a `captionAnchorPrompt` reply, without a `Caption:` label or surrounding quotes. */
export function cleanCaption(reply: string): string {
  return stripQuotes(reply.trim().replace(/^(?:hypothetical\s+)?caption\s*:\s*/i, '')).replace(/\s+/g, ' ').trim();
}

/** V-Mem asks for at most 8 keywords (Appendix C): more only blur what the picture shows. */
export const IMAGE_KEYWORDS_MAX = 8;

/**
 * Asks a vision model to name what the query image shows, for image+text→text retrieval: at most
 * 8 terms, in the words an answer would use, so they match how the memory talks about it. The
 * keywords search every round; the question's own words re-rank the image matches.
 * @example
 * const words = parseKeywords(await llm.complete({ messages: imageKeywordsPrompt({ url: dataUrl }, 'Where did I buy this?') }));
 */
export function imageKeywordsPrompt(image: LlmImage, question: string): LlmMessage[] {
  return [
    {
      role: 'system',
      content: 'You look at pictures and name what is in them, tersely.',
    },
    {
      role: 'user',
      content:
        `The attached picture comes with this question: "${question.trim()}"\n\n` +
        `Give at most ${IMAGE_KEYWORDS_MAX} keywords for what is visible in the picture that could help find the answer, ` +
        'in the words someone answering the question would use: objects, people, animals, the kind of place, brands, ' +
        'and any text you can read. Reply with the keywords only, on one line, separated by commas.',
      images: [image],
    },
  ];
}

/**
 * The keywords in a reply, in order, without duplicates (case-insensitive). Accepts commas,
 * semicolons or new lines as separators, and drops bullets, numbering, quotes and a `Keywords:` label.
 * @example
 * parseKeywords('1. "red bicycle"\n2. street\n- Bike shop sign') // ['red bicycle', 'street', 'Bike shop sign']
 */
export function parseKeywords(reply: string, max = IMAGE_KEYWORDS_MAX): string[] {
  const seen = new Set<string>();
  const keywords: string[] = [];
  // Drop a lead-in such as "Keywords:" or "Here are the keywords for the picture:".
  const body = reply.replace(/^[^\n]*?keywords?[^:\n]*:\s*/i, '');
  for (const piece of body.split(/[,;\n]|\s[•·|]\s/)) {
    const keyword = stripQuotes(
      piece
        .replace(/[*`]+/g, '') // markdown emphasis
        .trim()
        .replace(/^(?:[-•·]\s*|\d+[.):\]]\s*|\d+\s+-\s+|\(\d+\)\s*)/, '') // bullets and numbering
        .replace(/^_+|_+$/g, '')
        .replace(/[.!]+$/, '')
        .trim(),
    ).trim();
    const key = keyword.toLowerCase();
    if (keyword === '' || seen.has(key)) continue;
    seen.add(key);
    keywords.push(keyword);
    if (keywords.length >= max) break;
  }
  return keywords;
}

/** Inputs of `answerPrompt`. */
export interface AnswerPromptInput {
  readonly question: string;
  /** Retrieved memory, usually `formatContext(result.blocks)`. */
  readonly context: string;
  /** Tells the model about attached images, usually `imageNote(n)`. @default undefined (no note) */
  readonly imageNote?: string;
  /** Tells the model about the picture the question came with, usually `queryImageNote(…)`. @default undefined (no note) */
  readonly queryImageNote?: string;
  /** Today's date, so the model can reason about "last week". A string is used as is. @default undefined (not stated) */
  readonly today?: number | Date | string;
  /** Images to attach to the question message, in the order `imageNote` announces. @default [] */
  readonly images?: readonly LlmImage[];
  /** Time zone for `today` when it is a number or Date. @default 'UTC' */
  readonly timeZone?: string;
}

/**
 * Asks for a brief answer drawn only from the retrieved memory.
 * @example
 * const messages = answerPrompt({ question, context: formatContext(result.blocks), today: Date.now() });
 */
export function answerPrompt(input: AnswerPromptInput): LlmMessage[] {
  const sections = [`Memory excerpts:\n${input.context.trim()}`];
  for (const note of [input.queryImageNote, input.imageNote]) if (note !== undefined && note.trim() !== '') sections.push(note.trim());
  if (input.today !== undefined) sections.push(`Today is ${describeToday(input.today, input.timeZone)}.`);
  sections.push(`Question: ${input.question.trim()}`);
  const question: LlmMessage =
    input.images === undefined || input.images.length === 0
      ? { role: 'user', content: sections.join('\n\n') }
      : { role: 'user', content: sections.join('\n\n'), images: input.images };
  return [
    {
      role: 'system',
      content:
        "You are a chat assistant's long-term memory. You get excerpts from earlier conversations with the " +
        'user, then a question. Answer from those excerpts only.\n' +
        "- If the excerpts do not hold the answer, say plainly that you don't have it in memory; do not guess.\n" +
        '- When timing matters, give the date of the conversation it comes from. Words like "yesterday" in an ' +
        'excerpt count from that excerpt\'s date, not from today.\n' +
        '- Be brief: one to three sentences, no preamble.',
    },
    question,
  ];
}

function describeToday(today: number | Date | string, timeZone: string | undefined): string {
  return typeof today === 'string' ? today : formatDate(today, timeZone);
}

/** Inputs of `conflictPrompt`. */
export interface ConflictPromptInput {
  /** The yes/no question as the user asked it, e.g. "Is it true that I'm allergic to peanuts?" */
  readonly question: string;
  /** Retrieved memory, usually `formatContext(result.blocks)`. */
  readonly context: string;
}

/** What `parseVerdict` reads off a `conflictPrompt` reply. */
export type Verdict = 'Yes' | 'No' | 'Not in memory';

/**
 * Asks a yes/no question about a statement against the memory ("Is it true that…?", "Does this
 * conflict with…?"). The model answers the question as asked: for "Is it true that I'm allergic to
 * peanuts?", Yes when the memory says so and No when it says otherwise; "Not in memory" when the
 * memory does not bear on it. The reply opens with the verdict (read it with `parseVerdict`), then
 * one sentence of reason.
 */
export function conflictPrompt(input: ConflictPromptInput): LlmMessage[] {
  return [
    {
      role: 'system',
      content:
        'You check statements against what a user said in earlier conversations and answer yes/no questions about them. ' +
        'Your reply always begins with Yes, No, or Not in memory.',
    },
    {
      role: 'user',
      content:
        `Memory excerpts:\n${input.context.trim()}\n\n` +
        `Question: ${input.question.trim()}\n\n` +
        'Answer the question exactly as it is asked, from the memory excerpts. If it asks whether something is true, ' +
        'say "Yes" when the memory supports it and "No" when the memory contradicts it. If it asks whether something ' +
        'conflicts with or contradicts the memory, say "Yes" when it does and "No" when it does not. If the memory says ' +
        'nothing that bears on it, say "Not in memory". Start your reply with exactly "Yes", "No" or "Not in memory", ' +
        'then give one sentence explaining why.',
    },
  ];
}

/**
 * The verdict at the start of a `conflictPrompt` reply; undefined when the reply opens with none.
 * Ignores case, leading quotes/markdown and an `Answer:` label.
 * @example
 * parseVerdict('**No.** You said you are not allergic.') // 'No'
 */
export function parseVerdict(reply: string): Verdict | undefined {
  const start = reply
    .replace(/^[\s"'`*_#>([]+/, '')
    .replace(/^(?:final\s+)?answer\s*:\s*/i, '')
    .replace(/^[\s"'`*_([]+/, '');
  if (/^not\s+(?:in|mentioned\s+in)\s+(?:the\s+)?memory\b/i.test(start)) return 'Not in memory';
  const match = /^(yes|no)\b/i.exec(start);
  if (match === null) return undefined;
  return (match[1] as string).toLowerCase() === 'yes' ? 'Yes' : 'No';
}

/** What the picture attached to a question shows, and the stored picture most like it. */
export interface QueryImageNoteInput {
  /** What the picture shows: its caption, or keywords a vision model read off it. */
  readonly shows?: string;
  /** The image lane's best match among stored pictures. */
  readonly match?: { readonly imageId: string; readonly caption?: string; readonly date?: string };
}

/**
 * The note that tells the model about the picture the question came with (V-Mem's attached-image
 * note): what it shows, and which stored picture it matches best. Empty when there is nothing to say.
 * @example
 * queryImageNote({ shows: 'a red motorcycle', match: { imageId: 'img-4', caption: 'my new motorbike', date: '2024-05-01' } })
 */
export function queryImageNote(input: QueryImageNoteInput): string {
  const parts: string[] = [];
  const shows = input.shows?.trim();
  parts.push(shows ? `The question comes with a picture that shows: ${oneLine(shows)}.` : 'The question comes with a picture.');
  const match = input.match;
  if (match) {
    const when = match.date ? ` from ${match.date}` : '';
    const caption = match.caption?.trim() ? `: ${oneLine(match.caption)}` : '';
    parts.push(`The stored picture most like it is image ${match.imageId}${when}${caption}.`);
  }
  if (!shows && !match) return '';
  return parts.join(' ');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[.\s]+$/, '');
}

/**
 * The sentence that tells the model about pictures attached to the question. Pass the image ids to
 * tie each picture to its `Image <id>` line in the context.
 * @example
 * imageNote(2, ['img-4', 'img-9'])
 */
export function imageNote(count: number, ids?: readonly string[]): string {
  if (!Number.isInteger(count) || count < 0) {
    throw new VmemError('INVALID_INPUT', `imageNote needs a whole number of images, got ${String(count)}.`);
  }
  if (ids !== undefined && ids.length !== count) {
    throw new VmemError('INVALID_INPUT', `imageNote got ${count} images but ${ids.length} ids; pass one id per attached image.`);
  }
  if (count === 0) return '';
  const order = ids === undefined ? '' : ` (${ids.map((id, i) => `picture ${i + 1} is image ${id}`).join(', ')})`;
  if (count === 1) {
    return `One picture from the memory is attached${order}. Look at it for visual details the text does not give.`;
  }
  return (
    `${count} pictures from the memory are attached, in order${order}. ` +
    'Look at them for visual details the text does not give.'
  );
}

function stripQuotes(text: string): string {
  return text.replace(/^["'“”‘’«»]+|["'“”‘’«»]+$/g, '');
}
