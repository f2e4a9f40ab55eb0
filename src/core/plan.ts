import type { ContextRule, NormalizedRetrievalOptions } from '../options.js';
import type { Lane, RetrievalCase, Route, Signal } from '../types.js';
import { retrievalCase, route } from './route.js';

/*
 * The one place that decides what a query needs. The memory fulfils the plan's `needs` (encoders,
 * LLM); the core runs its signals and assembles the result. Pure: the question, what the memory can
 * do, and the options in; the plan out.
 */

/** What a question comes with. */
export interface QueryFacts {
  readonly text: string;
  readonly hasImage: boolean;
  /** The attached image has bytes (a vision LLM can look at it). */
  readonly imageBytes: boolean;
  /** The image lane can encode the attached image: it has bytes, or a caption for a caption-only image encoder. */
  readonly imageReadable: boolean;
  /** The attached image's caption, when the question came with one. */
  readonly imageCaption?: string;
}

/** What the memory can do for a query. */
export interface Capabilities {
  /** An image encoder is configured. */
  readonly imageLane: boolean;
  /** Word vectors are configured (the `similar-words` signal). */
  readonly wordVectors: boolean;
  /** An LLM is available (and allowed by `llmAnchors`). */
  readonly llm: boolean;
  /** That LLM can look at pictures. */
  readonly vision: boolean;
  /** An offline describer can read words off a picture (and enriched anchors are allowed). */
  readonly describer: boolean;
}

/** What the memory must produce before the core can run the plan. */
export interface QueryNeeds {
  /** Embed the question text. */
  readonly questionVector: boolean;
  /** The question's content words, to embed too (undefined: not wanted, or nothing left). */
  readonly contentText: string | undefined;
  /** Encode the attached image in the image lane. */
  readonly imageVector: boolean;
  /** Ask the LLM for the caption the sought picture would have (text→image), and embed it. */
  readonly captionAnchor: boolean;
  /** Ask a vision LLM for keywords of the attached picture (image+text→text, when it has no caption), and embed them. */
  readonly imageKeywords: boolean;
  /** Without a vision LLM, have the offline describer read keywords off the attached picture instead. */
  readonly describedKeywords: boolean;
  /** Embed words that describe the attached picture (its caption, or keywords read off it), which search the text lane. */
  readonly pictureWords: boolean;
}

/** What a search is run with. */
export type QueryInput = 'question' | 'content' | 'picture-words' | 'caption-anchor' | 'query-image' | 'matched-image';

/** Where a search looks: a lane, and in the text lane which units. */
export type SearchSource = 'bm25' | 'similar-words' | 'dense' | 'caption-bm25' | 'caption-dense' | 'image' | 'image-echo';

/**
 * Which rounds a signal may vote for: all of them, those within ±1 of an image (text→image), or those
 * holding one of the image lane's top matches (image+text→text).
 */
export type SignalScope = 'all' | 'near-images' | 'image-matches';

export interface PlannedSearch {
  readonly source: SearchSource;
  readonly input: QueryInput;
  /** The part of its signal's vote this search carries; a signal's searches add up to 1. */
  readonly share: number;
}

export interface PlannedSignal {
  readonly signal: Signal;
  /** The lane searched. */
  readonly lane: Lane;
  /** The lane whose vote it shares under lane balance (an echo of the image match votes with the image lane). */
  readonly voteLane: Lane;
  readonly scope: SignalScope;
  readonly searches: readonly PlannedSearch[];
}

/** How the returned rounds are chosen once the hits are fused. */
export interface ContextPlan {
  readonly rule: ContextRule;
  /** Rounds on each side of a hit that take part. */
  readonly radius: number;
  readonly neighbourShare: number;
  readonly sessionShare: number;
}

export interface QueryPlan {
  readonly route: Route;
  readonly case: RetrievalCase;
  readonly needs: QueryNeeds;
  readonly signals: readonly PlannedSignal[];
  /** Rounds returned (hits for the window rules). */
  readonly k: number;
  readonly context: ContextPlan;
}

/**
 * Plans a query: routes it, picks the signals of its case and what each needs, and how many rounds
 * come back with how much context. With routing off, every lane the query supports fires over all
 * rounds with the raw question (the benchmark's `vanilla` ablation).
 * @example planQuery({ text: 'Which photo showed the cat?', hasImage: false, imageBytes: false, imageReadable: false }, { imageLane: true, llm: false, vision: false, describer: false }, options)
 */
export function planQuery(facts: QueryFacts, can: Capabilities, options: NormalizedRetrievalOptions): QueryPlan {
  const decided = route(facts.text, facts.hasImage);
  const theCase = retrievalCase(decided);
  const hasText = facts.text.trim() !== '';
  const imageVector = facts.hasImage && facts.imageReadable && can.imageLane;
  const contentText = hasText && options.contentQuery && options.routing ? contentWords(facts.text) : undefined;
  const captionAnchor = options.routing && can.llm && theCase === 'text-to-image' && !decided.counting && hasText;
  // Words that describe the attached picture: its caption, or (for a text target, V-Mem's step) keywords a
  // vision LLM reads off it, or without one the offline describer's.
  const caption = facts.imageCaption?.trim();
  const wantsKeywords = options.routing && options.pictureWords && facts.hasImage && decided.target === 'text' && !caption && facts.imageBytes;
  const imageKeywords = wantsKeywords && can.llm && can.vision;
  const describedKeywords = wantsKeywords && !imageKeywords && can.describer;
  const pictureWords = options.routing && options.pictureWords && facts.hasImage && (caption ? true : imageKeywords || describedKeywords);
  const needs: QueryNeeds = { questionVector: hasText, contentText, imageVector, captionAnchor, imageKeywords, describedKeywords, pictureWords };

  const aggregate = options.aggregationBranch && decided.aggregation;
  const context: ContextPlan = aggregate && !options.aggregationContext
    ? { rule: options.context, radius: 0, neighbourShare: 0, sessionShare: 0 }
    : { rule: options.context, radius: options.neighbours, neighbourShare: options.neighbourShare, sessionShare: options.sessionShare };
  const signals = planSignals(theCase, needs, hasText, can.wordVectors, options).filter((signal) => options.weights[signal.signal] !== 0);
  return { route: decided, case: theCase, needs, signals, k: aggregate ? options.aggregationK : options.k, context };
}

function planSignals(theCase: RetrievalCase, needs: QueryNeeds, hasText: boolean, wordVectors: boolean, options: NormalizedRetrievalOptions): PlannedSignal[] {
  const dense: PlannedSearch[] = needs.contentText
    ? [
        { source: 'dense', input: 'question', share: 0.5 },
        { source: 'dense', input: 'content', share: 0.5 },
      ]
    : [{ source: 'dense', input: 'question', share: 1 }];
  // The question's words matched softly: what BM25 misses when the answer names an instance of what
  // the question names ("martial arts" → "kickboxing"). Picture words are left to BM25 and the image lane.
  const similarWords = (scope: SignalScope): PlannedSignal[] =>
    wordVectors ? [{ signal: 'similar-words', lane: 'text', voteLane: 'text', scope, searches: [{ source: 'similar-words', input: 'question', share: 1 }] }] : [];
  const textSignals = (scope: SignalScope, input: 'question' | 'picture-words' = 'question'): PlannedSignal[] =>
    hasText || input === 'picture-words'
      ? [
          { signal: 'bm25', lane: 'text', voteLane: 'text', scope, searches: [{ source: 'bm25', input, share: 1 }] },
          ...(input === 'question' ? similarWords(scope) : []),
          { signal: 'dense', lane: 'text', voteLane: 'text', scope, searches: input === 'picture-words' ? [{ source: 'dense', input, share: 1 }] : dense },
        ]
      : [];
  // Words that describe the attached picture. Beside the image lane they search by BM25 alone: their
  // vector would repeat what the image lane measures (how alike the pictures are), their words add
  // what it cannot see (a species, a landmark's name). Without the image lane they search both ways.
  const pictureWordSignals = (scope: SignalScope): PlannedSignal[] =>
    needs.pictureWords ? textSignals(scope, 'picture-words').filter((signal) => !needs.imageVector || signal.signal === 'bm25') : [];
  const image: PlannedSignal[] = needs.imageVector
    ? [{ signal: 'image', lane: 'image', voteLane: 'image', scope: 'all', searches: [{ source: 'image', input: 'query-image', share: 1 }] }]
    : [];
  if (!options.routing) return [...textSignals('all'), ...image];

  const nearImages: SignalScope = options.imageRoundFilter ? 'near-images' : 'all';
  switch (theCase) {
    case 'text-to-text':
      return textSignals('all');
    case 'text-to-image': {
      const anchor: PlannedSignal[] = needs.captionAnchor
        ? [
            {
              signal: 'caption-anchor',
              lane: 'text',
              voteLane: 'text',
              scope: nearImages,
              searches: [
                { source: 'caption-dense', input: 'caption-anchor', share: 0.5 },
                { source: 'caption-bm25', input: 'caption-anchor', share: 0.5 },
              ],
            },
          ]
        : [];
      return [...textSignals(nearImages), ...anchor];
    }
    case 'image+text-to-image': {
      // The picture's caption words find pictures described alike; they look only near pictures.
      const pictureWords = pictureWordSignals(nearImages);
      // An image the image lane cannot read (no encoder, no bytes) still has its text to go on.
      return needs.imageVector ? [...image, ...pictureWords] : [...textSignals(nearImages), ...pictureWords];
    }
    case 'image+text-to-text': {
      // Words that describe the picture (its caption, or keywords a vision LLM read off it) may search everywhere.
      const pictureWords = pictureWordSignals('all');
      if (!needs.imageVector) return [...textSignals('all'), ...pictureWords];
      // The question asks about the picture ("what breed is the dog in this photo?"), so its own words
      // match every round on the topic; they only re-rank the rounds the image lane found.
      const echo: PlannedSignal = { signal: 'image-echo', lane: 'text', voteLane: 'image', scope: 'all', searches: [{ source: 'image-echo', input: 'matched-image', share: 1 }] };
      return [...image, echo, ...textSignals('image-matches'), ...pictureWords];
    }
  }
}

/*
 * The interrogative frame of a question ("What … did", "How many … has") matches every turn that asks
 * something; its content words are what the answer talks about. Dense search runs with both.
 */
const WH_OPENING = /^\s*(?:(?:and|so|but|also|then|ok(?:ay)?|please|hey)[\s,]+)*(?:what|which|who|whom|whose|where|when|why|how)\b\s*/i;
const AUXILIARIES = /\b(?:is|are|was|were|am|do|does|did|has|have|had)\b\s*/gi;

/** The question without its opening wh-word and auxiliaries; undefined when that leaves nothing new. */
export function contentWords(question: string): string | undefined {
  const content = question.replace(WH_OPENING, '').replace(AUXILIARIES, '').replace(/[?!.\s]+$/, '').replace(/\s{2,}/g, ' ').trim();
  return content === '' || content === question.trim() ? undefined : content;
}
