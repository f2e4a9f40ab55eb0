import type { ProgressCallback } from '../progress.js';
import type { SkippedImage } from '../images/attach.js';
import type { LlmImage } from '../llm/types.js';
import type { RetrievalFilter, RetrievalOptions } from '../options.js';
import type { StoredImage } from '../storage/types.js';
import type { EncoderIds, ImageRef, Query, RetrievalResult, RoundInput, StoredRound } from '../types.js';
import type { DescribeRun } from './derived.js';
import type { SyncHandle, SyncOptions, SyncState } from '../sync/types.js';

/** One unit as ranked by one signal. */
export interface UnitHit {
  readonly unitId: string;
  readonly roundId: string;
  /** BM25 score or cosine similarity. */
  readonly score: number;
}

/** A single-signal unit search: the building block of retrieval, exposed for baselines and tools. */
export interface SignalSearch {
  /**
   * `bm25` and `dense` search the text lane's units, `caption-dense` its captions only, `image` the
   * image lane; `similar-words` ranks whole rounds by word vectors (each hit's `unitId` is the round
   * id), and needs a memory created with `wordVectors`.
   */
  readonly signal: 'bm25' | 'dense' | 'caption-dense' | 'image' | 'similar-words';
  /** Query text for `bm25`, `dense`, `caption-dense` and `similar-words`. */
  readonly text?: string;
  /** Query image for `image`. */
  readonly image?: Query['image'];
  /** Most units returned; a whole number of at least 1. @default 20 */
  readonly limit?: number;
  /** Only units of these rounds. @default every round */
  readonly roundIds?: ReadonlySet<string>;
  /** Only units of rounds the filter lets through (as in `retrieve`). @default every round */
  readonly filter?: RetrievalFilter;
}

/** A page of the history for `memory.rounds`. */
export interface RoundsPage {
  /** Position of the first round (0 is the oldest). @default 0 */
  readonly from?: number;
  /** Most rounds returned. @default every round from `from` on */
  readonly limit?: number;
}

/** Changes to one side of a round. Fields left out stay as they are. */
export interface TurnPatch {
  /** New typed text; `''` removes it. */
  readonly text?: string;
  /** New voice transcript; `''` removes it. */
  readonly audioTranscript?: string;
  /**
   * New captions by image id (images of this turn only); `''` removes a caption.
   * @example { 'img-1': 'a red motorcycle by the door' }
   */
  readonly captions?: Readonly<Record<string, string>>;
}

/**
 * Changes to a stored round, for `memory.update`. Images themselves are not added or removed here
 * (`forget` the round and `add` it again for that); their captions are.
 * @example { user: { text: 'My new address is 12 Elm St.' }, meta: { edited: true } }
 */
export interface RoundPatch {
  readonly sessionId?: string;
  /** Epoch ms, a Date or an ISO string. The round keeps its place in the history (`seq`). */
  readonly timestamp?: number | string | Date;
  /** Replaces the round's metadata; `null` removes it. */
  readonly meta?: Readonly<Record<string, string | number | boolean>> | null;
  readonly user?: TurnPatch;
  readonly assistant?: TurnPatch;
}

export interface AddOptions {
  readonly onProgress?: ProgressCallback;
  /** As `MemoryOptions.describe`, for this call. @default the memory's `describe` option */
  readonly describe?: 'wait' | 'background';
}

/** Options of `memory.describePending`. */
export interface DescribePendingOptions {
  /** Progress (task `describe`, unit `images`). @default the memory's `onProgress` */
  readonly onProgress?: ProgressCallback;
}

/** Options of `memory.setCaption`. */
export interface SetCaptionOptions {
  /**
   * Who wrote the caption. `'vision-llm'` (the description job) replaces the picture's machine-derived
   * description: its `derived` unit goes, the caption stands in for it.
   * @default 'user'
   */
  readonly source?: 'user' | 'vision-llm';
}

export interface AnswerOptions extends RetrievalOptions {
  /** Attach retrieved images to the answer call when the question needs visual detail. @default true */
  readonly attachImages?: boolean;
  /** Most images attached. @default 5 */
  readonly maxImages?: number;
  readonly signal?: AbortSignal;
}

export interface AnswerResult {
  readonly answer: string;
  readonly retrieval: RetrievalResult;
  /** The images sent with the answer call, after any degrade step. */
  readonly attachedImages: readonly ImageRef[];
  /** How the call degraded after a context-length rejection. */
  readonly degraded?: 'fewer-images' | 'text-only';
  /** Why no picture went along, when none did. */
  readonly attachSkipped?: AttachSkipReason;
  /** Retrieved pictures passed over while preparing (caption-only, missing, undecodable). */
  readonly skippedImages: readonly SkippedImage[];
}

/**
 * Why an answer went without pictures:
 * `disabled` (`attachImages: false` or `maxImages: 0`), `text-only-provider` (the LLM has no vision),
 * `not-visual` (the question asks for nothing seen and targets no image), `no-resizer` (no
 * `imageResizer` configured), `no-images` (nothing retrieved has image bytes that decode).
 */
export type AttachSkipReason = 'disabled' | 'text-only-provider' | 'not-visual' | 'no-resizer' | 'no-images';

/** A long-term memory of one conversation (or one user). Create it with `createMemory`. */
export interface Memory {
  /** The encoders that built it. */
  readonly encoders: EncoderIds;
  /** Number of rounds stored. */
  readonly size: number;
  /**
   * Stores rounds. Validates and encodes all of them before storing any: on error nothing changes.
   * Never re-encodes what is already stored.
   */
  add(rounds: RoundInput | readonly RoundInput[], options?: AddOptions): Promise<StoredRound[]>;
  /** Routed retrieval; a string is a text-only query. */
  retrieve(query: Query | string, options?: RetrievalOptions): Promise<RetrievalResult>;
  /** Retrieves, then asks the LLM. Rejects with `LLM_UNAVAILABLE` under the `none` provider. */
  answer(query: Query | string, options?: AnswerOptions): Promise<AnswerResult>;
  /** Ranks units by one signal. */
  search(request: SignalSearch): Promise<UnitHit[]>;
  /**
   * Edits a stored round and re-encodes only the units whose text changed (image vectors are kept).
   * All or nothing: on any error the memory is unchanged. Rejects with `UNKNOWN_ROUND` for an id not
   * stored, `UNKNOWN_IMAGE` for a caption of an image the turn does not hold, `INVALID_INPUT` for an
   * empty or malformed patch, `EMPTY_ROUND` when nothing would be left.
   * @example await memory.update('r-12', { user: { text: 'I moved to Lisbon in May, not June.' } });
   */
  update(roundId: string, patch: RoundPatch): Promise<StoredRound>;
  /**
   * Sets an image's caption (e.g. from the description job), folds it into its turn's text and indexes
   * it. Rejects with `UNKNOWN_IMAGE` for an image not stored.
   */
  setCaption(imageId: string, caption: string, options?: SetCaptionOptions): Promise<StoredRound>;
  /**
   * Describes every stored picture with bytes that has no description from the memory's `describer`
   * yet, and resolves when none is left; joins the job already running (the background job of
   * `describe: 'background'`, or the one a reopened memory resumes). Rejects with `INVALID_INPUT` when
   * the memory has no describer.
   * @example await memory.add(rounds, { describe: 'background' }); … await memory.describePending();
   */
  describePending(options?: DescribePendingOptions): Promise<DescribeRun>;
  /** Whether a round is stored (no storage read). */
  has(roundId: string): boolean;
  /**
   * A stored round, read from storage (rounds stay there until asked for; the last few thousand read
   * are kept at hand); undefined for an id not stored.
   */
  get(roundId: string): Promise<StoredRound | undefined>;
  /**
   * Rounds in history order, read from storage: all of them, or a page (`{ from, limit }`, by
   * position in the history; `size` says how many there are). Reading a large memory whole is slow:
   * page through it.
   * @example const latest = await memory.rounds({ from: Math.max(0, memory.size - 50) });
   */
  rounds(page?: RoundsPage): Promise<StoredRound[]>;
  getImage(imageId: string): Promise<StoredImage | undefined>;
  /** Removes a round with its units and images. Rejects with `UNKNOWN_ROUND` for an id not stored. */
  forget(roundId: string): Promise<void>;
  /**
   * Replicates this memory with a CouchDB database (docs/sync.md): one pass both ways, or `live`.
   * Needs the optional peers pouchdb-core, pouchdb-adapter-http, pouchdb-replication and the
   * replica's adapter (pouchdb-adapter-idb in browsers, pouchdb-adapter-leveldb or -memory in Node).
   * A passphrase-locked memory syncs only end-to-end encrypted (`passphrase`).
   * @example await memory.sync({ url: 'http://127.0.0.1:5984/alice', passphrase }).done;
   */
  sync(options: SyncOptions): SyncHandle;
  /** Where the last `sync` stands (`idle` before any). */
  syncState(): SyncState;
  clear(): Promise<void>;
  close(): Promise<void>;
}

export type { LlmImage, SkippedImage };
