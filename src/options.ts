import type { ImageDescriber } from './describe/types.js';
import type { ImageEmbedder, TextEmbedder } from './encoders/types.js';
import type { ProgressCallback } from './progress.js';
import type { LlmProvider } from './llm/types.js';
import type { MemoryStorage } from './storage/types.js';
import type { ImageResizer } from './images/types.js';
import type { Signal, WordVectors } from './types.js';
import { VmemError } from './errors.js';

/** A time as `retrieve` accepts it: epoch ms, a Date, or an ISO date string. */
export type TimeInput = number | string | Date;

/**
 * Which rounds retrieval may return. Every condition given must hold; a round that fails one is
 * never a hit and never context. Nothing matching is not an error: the result is simply empty.
 * @example { sessionIds: ['trip-2024'], timeRange: { from: '2024-05-01', to: '2024-06-01' }, meta: { source: 'chat' } }
 */
export interface RetrievalFilter {
  /** Only rounds of these sessions. An id no round has matches nothing. @default every session */
  readonly sessionIds?: readonly string[];
  /**
   * Only rounds whose timestamp is at or after `from` and before `to`. Either end may be left out.
   * @default no time limit
   * @example { from: '2024-05-01', to: new Date('2024-06-01') }
   */
  readonly timeRange?: { readonly from?: TimeInput; readonly to?: TimeInput };
  /** Only rounds whose metadata holds every one of these keys with exactly this value. @default no metadata condition */
  readonly meta?: Readonly<Record<string, string | number | boolean>>;
}

/** Knobs of routed retrieval. Every field has the default shown. */
export interface RetrievalOptions {
  /** Rounds returned: the best-ranked hits and the context rounds ranked around them. @default 23 */
  readonly k?: number;
  /** Rounds returned for aggregation questions ("how many…", "list…", "in what ways…"), which gather across the history. @default 30 */
  readonly aggregationK?: number;
  /** Rounds on each side of a hit that share its evidence as context (same session only). @default 1 */
  readonly neighbours?: number;
  /** Candidate rounds each signal contributes before fusion. @default 100 */
  readonly poolSize?: number;
  /** Reciprocal-rank-fusion constant κ in 1/(κ + rank): lower trusts the top of each list more. @default 5 */
  readonly rrfK?: number;
  /** Per-signal weight in the fusion; 0 turns a signal off. @default { bm25: 1, dense: 1, image: 1, 'caption-anchor': 1, 'image-echo': 1 } */
  readonly weights?: Partial<Record<Signal, number>>;
  /** Ask the LLM for a hypothetical caption (text→image) and image keywords (image+text→text). @default true */
  readonly llmAnchors?: boolean;
  /** Which rounds may come back. @default every round */
  readonly filter?: RetrievalFilter;
  /**
   * "Now", for the times a question names relative to it ("yesterday", "last weekend", "3 weeks
   * ago"): epoch ms, a Date or an ISO string. Set it to replay an old conversation as of its day.
   * @default the clock at each retrieval
   * @example { now: '2026-12-01T09:00:00Z' }
   */
  readonly now?: TimeInput;
  /**
   * The confidence (an estimate of the probability that the round is relevant) a hit needs to count:
   * when no hit reaches it, the result is `relevant: false`. The default was chosen on the dev sets
   * so that very few answerable questions are judged not relevant: hiding a real memory is worse than
   * showing a weak one.
   * @default 0.1
   */
  readonly minConfidence?: number;
  /**
   * Leave out the hits under `minConfidence` (they move to `candidates`, with the context that came
   * only for them), so a result that is not relevant holds no rounds. Off by default: every ranked
   * hit comes back, each with its confidence, and `relevant` only flags the result, because leaving
   * out weak hits also leaves out some real ones (docs/retrieval.md has the measured cost).
   * @default false
   */
  readonly dropWeakHits?: boolean;
}

/**
 * How retrieval fills the returned rounds around its hits:
 * - `scored`: every round is ranked by its own evidence plus a share of its neighbours' and of its
 *   session's best, and the top `k` come back (the default);
 * - `window`: the top `k` hits plus every ±`neighbours` round (V-Mem's rule), never counted against k;
 * - `evidence-window`: the same, but a neighbour joins only if some signal found it.
 */
export type ContextRule = 'scored' | 'window' | 'evidence-window';

/**
 * Benchmark switches: each turns one stage of retrieval off or picks an older variant, so the
 * benchmark can measure what the stage adds. Unstable: reached only through `vmem/internal`.
 */
export interface RetrievalAblation {
  /** Use the four-case router; `false` fires every lane the query supports with the raw query. @default true */
  readonly routing?: boolean;
  /** `'unit'` fuses and returns bare units instead of rounds. @default 'round' */
  readonly granularity?: 'round' | 'unit';
  /** Each signal's weight is divided among the signals of its lane, so lanes vote equally. @default true */
  readonly laneBalance?: boolean;
  /** In text→image, only rounds with an image within ±1 may be hits (unless none would remain). @default true */
  readonly imageRoundFilter?: boolean;
  /** Aggregation questions get `aggregationK` rounds. @default true */
  readonly aggregationBranch?: boolean;
  /**
   * Aggregation questions keep the context shares (only k widens); `false` ranks them by their own
   * evidence alone, V-Mem's "no neighbours". @default true
   */
  readonly aggregationContext?: boolean;
  /** How context rounds join. @default 'scored' */
  readonly context?: ContextRule;
  /** Under `scored`: share of each neighbour's evidence a round gets. @default 0.3 */
  readonly neighbourShare?: number;
  /** Under `scored`: share of its session's best evidence a round gets. @default 0.5 */
  readonly sessionShare?: number;
  /** BM25 ranks whole rounds (`'round'`) or a round by its best unit (`'unit'`). @default 'round' */
  readonly bm25Over?: 'round' | 'unit';
  /** BM25 hits scoring under this fraction of the best hit are dropped. @default 0.1 */
  readonly bm25Floor?: number;
  /** Dense also searches with the question's content words (its interrogative frame dropped). @default true */
  readonly contentQuery?: boolean;
  /** Rounds inside a time the question names ("in May 2023") rank above the others. @default true */
  readonly timeExpressions?: boolean;
  /** Words that describe a question's picture (its caption, or keywords read off it) search the text lane. @default true */
  readonly pictureWords?: boolean;
  /** Attach the confidence model's features to the result (under `CONFIDENCE_FEATURES`), to fit the model. @default false */
  readonly explainConfidence?: boolean;
}

/** Retrieval options with every default filled in and every number checked. */
export interface NormalizedRetrievalOptions extends Required<Omit<RetrievalOptions, 'weights' | 'filter' | 'llmAnchors' | 'now'>>, Required<RetrievalAblation> {
  readonly weights: Readonly<Record<Signal, number>>;
  readonly llmAnchors: boolean;
  readonly filter: RetrievalFilter | undefined;
  /** Epoch ms; undefined reads the clock at each retrieval. */
  readonly now: number | undefined;
}

/** Options of `createMemory`. */
export interface MemoryOptions {
  /** Encodes turn text, captions and text queries. */
  readonly textEncoder: TextEmbedder;
  /** Encodes images. Without it, images are kept and captions indexed, but the image lane is empty. */
  readonly imageEncoder?: ImageEmbedder;
  /** Where rounds persist. @default an in-memory store */
  readonly storage?: MemoryStorage;
  /** LLM for anchors and answers. @default the `none` provider */
  readonly llm?: LlmProvider;
  /** Defaults for every `retrieve` call. */
  readonly retrieval?: RetrievalOptions;
  /** Longest text accepted per turn, in characters. @default 20000 */
  readonly maxTextChars?: number;
  /**
   * What to do when the stored memory was built by other encoders:
   * `'error'` refuses to open; `'reindex'` re-encodes every stored round with the new encoders.
   * @default 'error'
   */
  readonly onEncoderMismatch?: 'error' | 'reindex';
  /**
   * Shrinks pictures attached to answers (longest side ≤ 768 px, JPEG quality 80). Without it answers
   * attach none. Use `nodeImageResizer` from `vmem/node` or `browserImageResizer`.
   * @default undefined
   */
  readonly imageResizer?: ImageResizer;
  /**
   * Describes pictures without an LLM (objects with colours and counts, people, readable text), so a
   * photo shared without a caption can be found by a text question. Each picture with bytes gets a
   * machine-derived description (`ImageRef.derived`), indexed as its own `derived` unit in the text
   * lane. Use `createNodeImageDescriber()` from `vmem/node`, or the worker's describer in browsers.
   * @default undefined (no descriptions)
   */
  readonly describer?: ImageDescriber;
  /**
   * When `add` describes pictures. `'wait'`: before `add` resolves, so they are searchable at once
   * (about 0.2–0.5 s more per photo; a picture the describer cannot decode rejects the `add`).
   * `'background'`: `add` stores the rounds and returns; a background job describes the pictures one
   * by one (progress task `describe`, unit `images`) and `memory.describePending()` waits for it. Either
   * way, pictures still undescribed when a memory opens (an interrupted job, a new describer) are
   * described in the background, from 3 s after it opens (so a first question does not wait for the
   * describer's model), or at once by `describePending()`.
   * @default 'wait'
   */
  readonly describe?: 'wait' | 'background';
  /**
   * Word vectors for the `similar-words` signal, which matches each question word to the most similar
   * word of every round ("martial arts" finds "karate"). Use `loadNodeWordVectors()` from
   * `vmem/node`; `openMemory` in `vmem/browser` loads them itself. Nothing about them is stored: a
   * memory opened with other word vectors, or none, just searches without them.
   * @default undefined (no similar-words signal)
   */
  readonly wordVectors?: WordVectors;
  /** Progress of long work: ingest, re-indexing and picture descriptions. */
  readonly onProgress?: ProgressCallback;
}

export const DEFAULT_MAX_TEXT_CHARS = 20_000;

/** Where a result carries the confidence model's features under `explainConfidence` (vmem/internal). */
export const CONFIDENCE_FEATURES = Symbol('vmem.confidenceFeatures');

/** Where `vmem/internal` hangs ablation switches on an options object; invisible to the public types. */
export const ABLATION = Symbol('vmem.retrievalAblation');

/**
 * Options with benchmark switches attached. The switches ride on a symbol, so they survive spreading
 * and passing through `answer`, yet no public type mentions them.
 * @example memory.retrieve(question, withAblation({ k: 12 }, { routing: false, granularity: 'unit' }))
 */
export function withAblation(options: RetrievalOptions, ablation: RetrievalAblation): RetrievalOptions {
  const current = (options as { [ABLATION]?: RetrievalAblation })[ABLATION];
  return { ...options, [ABLATION]: { ...current, ...ablation } } as RetrievalOptions;
}

/** Where `vmem/internal` marks memory options for float32 vectors; invisible to the public types. */
const FLOAT_VECTORS = Symbol('vmem.floatVectors');

/**
 * Memory options for a memory whose lanes keep float32 vectors and score them by exact dot products
 * instead of int8 ones: what the benchmark's `--float-vectors` compares `full` against. For
 * measurement only: it holds four times the vector bytes, and a memory that has stored segments
 * cannot be opened with it (they hold int8 only), so use it on new in-memory memories.
 * @example const exact = await createMemory(withFloatVectors({ textEncoder, imageEncoder }))
 */
export function withFloatVectors(options: MemoryOptions): MemoryOptions {
  return { ...options, [FLOAT_VECTORS]: true } as MemoryOptions;
}

/** Whether `withFloatVectors` marked these options. */
export function keepsFloatVectors(options: MemoryOptions): boolean {
  return (options as { [FLOAT_VECTORS]?: boolean })[FLOAT_VECTORS] === true;
}

const RETRIEVAL_OPTION_KEYS: ReadonlySet<string> = new Set(['k', 'aggregationK', 'neighbours', 'poolSize', 'rrfK', 'weights', 'llmAnchors', 'filter', 'now', 'minConfidence', 'dropWeakHits']);

const DEFAULTS: NormalizedRetrievalOptions = {
  k: 23,
  aggregationK: 30,
  neighbours: 1,
  poolSize: 100,
  rrfK: 5,
  weights: { bm25: 1, 'similar-words': 0.5, dense: 1, image: 1, 'caption-anchor': 1, 'image-echo': 1 },
  llmAnchors: true,
  filter: undefined,
  routing: true,
  granularity: 'round',
  laneBalance: true,
  imageRoundFilter: true,
  aggregationBranch: true,
  aggregationContext: true,
  context: 'scored',
  neighbourShare: 0.3,
  sessionShare: 0.5,
  bm25Over: 'round',
  bm25Floor: 0.1,
  contentQuery: true,
  timeExpressions: true,
  pictureWords: true,
  explainConfidence: false,
  now: undefined,
  minConfidence: 0.1,
  dropWeakHits: false,
};

/**
 * Fills in defaults (from `base`, else the built-in ones) and checks every number: a count must be a
 * whole number (k and the pool at least 1), a weight or share finite and not negative. Bad values
 * reject with `INVALID_INPUT`.
 */
export function normalizeRetrievalOptions(options: RetrievalOptions = {}, base: NormalizedRetrievalOptions = DEFAULTS): NormalizedRetrievalOptions {
  if (typeof options !== 'object' || options === null) throw new VmemError('INVALID_INPUT', `Retrieval options must be an object such as { k: 10 }, got ${String(options)}.`);
  const unknown = Object.keys(options).filter((key) => !RETRIEVAL_OPTION_KEYS.has(key));
  if (unknown.length > 0) {
    throw new VmemError('INVALID_INPUT', `Unknown retrieval option ${unknown.map((key) => `"${key}"`).join(', ')}; use ${[...RETRIEVAL_OPTION_KEYS].join(', ')}.`);
  }
  const ablation: RetrievalAblation = (options as { [ABLATION]?: RetrievalAblation })[ABLATION] ?? {};
  const pick = <T>(value: T | undefined, fallback: T): T => (value === undefined ? fallback : value);
  const weights = { ...base.weights };
  for (const [signal, weight] of Object.entries(options.weights ?? {})) {
    if (weight === undefined) continue;
    if (!(signal in weights)) throw new VmemError('INVALID_INPUT', `weights.${signal} is not a signal; use one of ${Object.keys(weights).join(', ')}.`);
    weights[signal as Signal] = nonNegative(weight, `weights.${signal}`);
  }
  return {
    k: count(pick(options.k, base.k), 'k', 1),
    aggregationK: count(pick(options.aggregationK, base.aggregationK), 'aggregationK', 1),
    neighbours: count(pick(options.neighbours, base.neighbours), 'neighbours', 0),
    poolSize: count(pick(options.poolSize, base.poolSize), 'poolSize', 1),
    rrfK: nonNegative(pick(options.rrfK, base.rrfK), 'rrfK'),
    weights,
    llmAnchors: pick(options.llmAnchors, base.llmAnchors),
    filter: pick(options.filter, base.filter),
    routing: pick(ablation.routing, base.routing),
    granularity: pick(ablation.granularity, base.granularity),
    laneBalance: pick(ablation.laneBalance, base.laneBalance),
    imageRoundFilter: pick(ablation.imageRoundFilter, base.imageRoundFilter),
    aggregationBranch: pick(ablation.aggregationBranch, base.aggregationBranch),
    aggregationContext: pick(ablation.aggregationContext, base.aggregationContext),
    context: pick(ablation.context, base.context),
    neighbourShare: nonNegative(pick(ablation.neighbourShare, base.neighbourShare), 'neighbourShare'),
    sessionShare: nonNegative(pick(ablation.sessionShare, base.sessionShare), 'sessionShare'),
    bm25Over: pick(ablation.bm25Over, base.bm25Over),
    bm25Floor: nonNegative(pick(ablation.bm25Floor, base.bm25Floor), 'bm25Floor'),
    contentQuery: pick(ablation.contentQuery, base.contentQuery),
    timeExpressions: pick(ablation.timeExpressions, base.timeExpressions),
    pictureWords: pick(ablation.pictureWords, base.pictureWords),
    explainConfidence: pick(ablation.explainConfidence, base.explainConfidence),
    now: options.now === undefined ? base.now : timeOf(options.now, 'Retrieval option now'),
    minConfidence: fraction(pick(options.minConfidence, base.minConfidence), 'minConfidence'),
    dropWeakHits: flag(pick(options.dropWeakHits, base.dropWeakHits), 'dropWeakHits'),
  };
}

/**
 * Epoch ms of a time given as epoch ms, a Date or an ISO string; `INVALID_INPUT` naming `label` when
 * it is none of them.
 */
export function timeOf(value: TimeInput, label: string): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new VmemError('INVALID_INPUT', `${label} is ${describeValue(value)}, which is not a time; use epoch ms, a Date or an ISO date such as 2024-05-01.`);
  return ms;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return `"${value}"`;
  if (value instanceof Date) return 'an invalid Date';
  return String(value);
}

function count(value: number, name: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new VmemError('INVALID_INPUT', `Retrieval option ${name} must be a whole number of at least ${min}, got ${String(value)}.`);
  }
  return value;
}

function flag(value: boolean, name: string): boolean {
  if (typeof value !== 'boolean') throw new VmemError('INVALID_INPUT', `Retrieval option ${name} must be true or false, got ${String(value)}.`);
  return value;
}

function fraction(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new VmemError('INVALID_INPUT', `Retrieval option ${name} must be a number from 0 to 1, got ${String(value)}.`);
  }
  return value;
}

function nonNegative(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new VmemError('INVALID_INPUT', `Retrieval option ${name} must be a finite number of at least 0, got ${String(value)}.`);
  }
  return value;
}
