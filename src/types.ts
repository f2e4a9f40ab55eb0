/** Data model of a memory: rounds of a conversation, their units, and what retrieval returns. */

export type Role = 'user' | 'assistant';

/** An image as given to `add` or attached to a query. */
export interface ImageInput {
  /** Stable id; generated when absent. Must be unique within a memory. */
  readonly id?: string;
  /** The encoded file (JPEG, PNG, WebP…). Optional only for caption-only images (benchmarks, imported logs). */
  readonly bytes?: Uint8Array;
  /** @example 'image/jpeg' */
  readonly mimeType?: string;
  /** A description of the image; indexed as text and folded into the turn's text. */
  readonly caption?: string;
}

/** One side of an exchange. */
export interface TurnInput {
  readonly text?: string;
  readonly images?: readonly ImageInput[];
  /** A voice message's transcript; stored as `[Audio: transcript]`. */
  readonly audioTranscript?: string;
}

/** One user/assistant exchange as given to `add`. */
export interface RoundInput {
  /** Stable id; generated when absent. Must be unique within a memory. */
  readonly id?: string;
  /** @default 'default' */
  readonly sessionId?: string;
  /** Epoch ms, a Date, or an ISO string. @default Date.now() */
  readonly timestamp?: number | string | Date;
  readonly user: TurnInput;
  readonly assistant?: TurnInput;
  /** Free-form metadata kept with the round (e.g. video segment times). */
  readonly meta?: Readonly<Record<string, string | number | boolean>>;
}

/** An image as stored: bytes live in storage, the round keeps this reference. */
export interface ImageRef {
  readonly id: string;
  readonly roundId: string;
  readonly role: Role;
  readonly caption?: string;
  readonly mimeType?: string;
  /** False for caption-only images. */
  readonly hasBytes: boolean;
  /**
   * What the memory's offline describer saw in the picture. Machine-derived, never the user's words:
   * kept apart from `caption` and indexed as its own `derived` unit.
   */
  readonly derived?: DerivedDescription;
}

/**
 * A picture's machine-derived description (objects with colours and counts, people, readable text,
 * the picture's colours), written by an `ImageDescriber` without an LLM.
 */
export interface DerivedDescription {
  /**
   * Who wrote it: the describer's id (`ImageDescriber.id`), or `vision-llm` once the vision-LLM
   * description job replaced it with a caption (`text` is then empty).
   */
  readonly by: string;
  /** The words indexed as the image's `derived` unit (no field labels). Empty when nothing was seen. */
  readonly text: string;
  /**
   * The same with field labels, for people to read.
   * @example 'Objects: a red motorcycle. Picture: mostly gray, red and brown'
   */
  readonly labelled: string;
}

export interface StoredTurn {
  /**
   * The turn as indexed and shown: what was typed, then `[Audio: transcript]`, then `[Image: caption]`
   * for each captioned image.
   */
  readonly text: string;
  /** What was typed, before the transcript and captions were folded in. Absent when nothing was typed. */
  readonly typed?: string;
  /** The voice message's transcript, when the turn had one. */
  readonly audioTranscript?: string;
  readonly images: readonly ImageRef[];
}

/** A round as stored. `seq` orders the history; neighbours are adjacent `seq` values in a session. */
export interface StoredRound {
  readonly id: string;
  readonly seq: number;
  readonly sessionId: string;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly user: StoredTurn;
  readonly assistant: StoredTurn;
  readonly meta?: Readonly<Record<string, string | number | boolean>>;
}

export type Lane = 'text' | 'image';

/**
 * `text`: a turn's text; `caption`: an image's caption in the text lane; `derived`: an image's
 * machine-derived description in the text lane; `image`: an image's pixels in the image lane.
 */
export type UnitKind = 'text' | 'caption' | 'derived' | 'image';

/** The indexed piece of a round: one per turn text, one per caption, one per image. */
export interface StoredUnit {
  readonly id: string;
  readonly roundId: string;
  readonly lane: Lane;
  readonly kind: UnitKind;
  readonly role: Role;
  /** Indexed text for `text`, `caption` and `derived` units. */
  readonly text?: string;
  /** The image a `caption`, `derived` or `image` unit belongs to. */
  readonly imageId?: string;
  /** Unit-length vector from the lane's encoder. */
  readonly vector: Float32Array;
}

/** A question: text, an image, or both. */
export interface Query {
  readonly text?: string;
  readonly image?: ImageInput;
}

/**
 * The four retrieval cases, named query modality `-to-` target modality (ASCII, to type and compare;
 * docs and the demo label them with arrows, e.g. "text→image").
 */
export type RetrievalCase = 'text-to-text' | 'text-to-image' | 'image+text-to-image' | 'image+text-to-text';

/** What the keyword router decides from the question alone (plus whether an image is attached). */
export interface Route {
  readonly queryModality: 'text' | 'text+image';
  readonly target: 'text' | 'image';
  /** Asks for a number ("how many…"): no hypothetical caption. */
  readonly counting: boolean;
  /** Gathers across the history ("how many…", "list…", "in what ways…"): wider k, no context rounds. */
  readonly aggregation: boolean;
  /** Asks whether a statement holds against memory ("Is it true that…?"): the answer is a Yes/No to the question as asked. */
  readonly conflict: boolean;
}

/** The ranking signals that can vote for a round. */
/**
 * `bm25`, `dense`: the text lane with the query text. `image`: the image lane with the query image.
 * `caption-anchor`: captions by a hypothetical caption (text→image with an LLM). `image-echo`: the text
 * lane searched with the stored vector of the best image match's caption (or turn text), so the talk
 * around a matched picture comes back (image+text→text).
 */
export type Signal = 'bm25' | 'similar-words' | 'dense' | 'image' | 'caption-anchor' | 'image-echo';

/** One signal's vote for a round: where it ranked the round, through which unit. */
export interface TraceHit {
  readonly lane: Lane;
  readonly signal: Signal;
  /** 1-based rank of the round under this signal. */
  readonly rank: number;
  /** Raw score of the best unit (BM25 score or cosine). */
  readonly score: number;
  /** The unit that matched; the round id itself when BM25 ranked the whole round. */
  readonly unitId: string;
  /** What the unit indexes; `derived` marks a machine-derived picture description. */
  readonly unitKind?: UnitKind;
}

/** Why a returned round came back. Hits come first, in rank order, then context rounds. */
export interface TraceEntry {
  readonly roundId: string;
  /** 1-based rank among the hits; undefined for context rounds. */
  readonly rank?: number;
  readonly fusedScore: number;
  readonly hits: readonly TraceHit[];
  /** True when the round is context (no signal found it; it came back for the hits near it), not a hit. */
  readonly neighbour: boolean;
  /** The hit round(s) it is context for: its neighbours among the hits, else its session's best hit. */
  readonly neighbourOf?: readonly string[];
  /**
   * Hits only: an estimate, in [0, 1], of the probability that the round is relevant to the
   * question (no LLM; see `RetrievalResult.confidence`).
   */
  readonly confidence?: number;
}

/** A run of consecutive rounds of one session, in time order. */
export interface Block {
  readonly sessionId: string;
  readonly rounds: readonly StoredRound[];
}

export interface RetrievalResult {
  readonly case: RetrievalCase;
  readonly route: Route;
  /** The query text actually searched (after anchors and keyword expansion). */
  readonly queryText: string;
  /** The hypothetical caption, when one was made. */
  readonly captionAnchor?: string;
  /** Words a vision LLM read off the attached picture, when it was asked. */
  readonly imageKeywords?: readonly string[];
  /** The stored image most like the attached one (the image lane's best match), when there was one. */
  readonly imageMatch?: { readonly imageId: string; readonly roundId: string; readonly score: number };
  /**
   * The times the question names, as read: `start` inclusive and `end` exclusive (epoch ms, UTC
   * days), the words they were read from, and `soft` for a vague phrase ("recently", "a while ago")
   * whose window is a guess. Rounds inside a span rank first; absent when the question names none.
   * @example [{ start: 1764288000000, end: 1764460800000, text: 'last weekend' }] // Sat 28 – Sun 29 Nov 2026
   */
  readonly timeSpans?: readonly { readonly start: number; readonly end: number; readonly text: string; readonly soft?: boolean }[];
  /**
   * How sure retrieval is that memory holds what the question asks about: the best hit's
   * confidence, an estimate in [0, 1] of the probability that it is relevant (0 when nothing matched).
   */
  readonly confidence: number;
  /**
   * False when no hit reaches `minConfidence`: memory seems to hold nothing about the question.
   * The ranked hits still come back unless `dropWeakHits` is set; then `blocks`, `images` and
   * `trace` are empty and the closest rounds are in `candidates`.
   */
  readonly relevant: boolean;
  /**
   * With `dropWeakHits`: hits left out for a confidence under `minConfidence`, best first (with
   * their confidence), every hit when `relevant` is false, for callers that want the closest rounds
   * anyway. Absent when none were left out. Read a round with `memory.get(roundId)`.
   */
  readonly candidates?: readonly TraceEntry[];
  readonly blocks: readonly Block[];
  /**
   * Pictures that answer: for image targets, those of the top rounds (the matched one first); for text
   * targets, the hit rounds' own pictures. Both in rank order; context rounds' pictures stay in `blocks`.
   */
  readonly images: readonly ImageRef[];
  readonly trace: readonly TraceEntry[];
  /** Problems that degraded this retrieval without stopping it, e.g. an LLM anchor that failed. */
  readonly warnings?: readonly string[];
  /** Under `granularity: 'unit'` only: the bare units returned, best first. */
  readonly units?: readonly ReturnedUnit[];
}

export interface ReturnedUnit {
  readonly unitId: string;
  readonly roundId: string;
  readonly kind: UnitKind;
  /** The unit's text (caption for image units with one; empty otherwise). */
  readonly text: string;
  readonly imageId?: string;
}

/** The encoders that built a memory; a memory never mixes vectors from two. */
export interface EncoderIds {
  readonly text: { readonly id: string; readonly dimension: number };
  readonly image?: { readonly id: string; readonly dimension: number };
  /**
   * The offline describer whose descriptions the memory indexes. A different one does not refuse the
   * memory: its pictures are described again, and only their `derived` units change.
   */
  readonly describer?: { readonly id: string };
}

/**
 * A table of word vectors (GloVe-style, one row per lower-case word), read by the `similar-words`
 * signal: each of a question's words is matched to the most similar word of every round, so "martial
 * arts" finds "karate" and "cities" finds "Rome" where BM25 needs the same word and a sentence
 * vector blurs one word among twenty.
 */
export interface WordVectors {
  /** Names the table (source, vocabulary size, precision), as encoder ids do. */
  readonly id: string;
  readonly dimension: number;
  /** Words in the table. */
  readonly size: number;
  /** The row of a lower-case word; undefined when the table lacks it. */
  rowOf(word: string): number | undefined;
  /** Cosine similarity of two rows, in [-1, 1]. */
  similarity(a: number, b: number): number;
}

/** Every image of a round: the user's, then the assistant's. */
export function imagesOf(round: Pick<StoredRound, 'user' | 'assistant'>): ImageRef[] {
  return [...round.user.images, ...round.assistant.images];
}
