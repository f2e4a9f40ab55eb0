import type { ImageDescriber } from './describe/types.js';
import type { ImageEmbedder, TextEmbedder } from './encoders/types.js';
import type { ProgressCallback } from './progress.js';
import type { LlmProvider } from './llm/types.js';
import type { MemoryStorage } from './storage/types.js';
import type { ImageResizer } from './images/types.js';
import type { Signal } from './types.js';

/** Knobs of routed retrieval. Every field has the default shown. */
export interface RetrievalOptions {
  /** Candidate units each signal contributes before fusion. @default 20 */
  readonly poolSize?: number;
  /** Reciprocal-rank-fusion constant κ in 1/(κ + rank). @default 60 */
  readonly rrfK?: number;
  /** Rounds returned as hits (neighbours come on top). @default 12 */
  readonly k?: number;
  /** Rounds on each side of a hit added as context. @default 1 */
  readonly neighbours?: number;
  /**
   * A neighbour joins the context only when some signal also found it (it is in a signal's candidate
   * pool). A neighbour no signal found spends context on a guess. `false` adds every ±`neighbours` round.
   * @default true
   */
  readonly neighboursNeedEvidence?: boolean;
  /** k for aggregation questions, which also drop neighbours. @default 30 */
  readonly aggregationK?: number;
  /** Per-signal weight in the fusion; 0 turns a signal off. @default { bm25: 1, dense: 1, image: 1, 'caption-anchor': 1, 'image-echo': 1 } */
  readonly weights?: Partial<Record<Signal, number>>;
  /**
   * Lanes vote equally in the fusion: each signal's weight is divided by the number of signals firing
   * in its lane, so the text lane's BM25 and dense together weigh as much as the image lane (whose say
   * `image-echo` shares, since it follows from the image match).
   * @default true
   */
  readonly laneBalance?: boolean;
  /** In text→image, drop rounds with no image within ±1 (unless none would remain). @default true */
  readonly imageRoundFilter?: boolean;
  /** Apply the aggregation branch (no neighbours, wider k). @default true */
  readonly aggregationBranch?: boolean;
  /** Ask the LLM for a hypothetical caption (text→image) and image keywords (image+text→text). @default true */
  readonly llmAnchors?: boolean;
  /**
   * Use the four-case router. `false` fires every lane the query supports with the raw query (an ablation).
   * @default true
   */
  readonly routing?: boolean;
  /**
   * `'round'` ranks rounds by their best unit and returns whole rounds; `'unit'` fuses and returns bare
   * units (an ablation used by the benchmark's `vanilla` and `routed` systems).
   * @default 'round'
   */
  readonly granularity?: 'round' | 'unit';
}

export interface NormalizedRetrievalOptions {
  readonly poolSize: number;
  readonly rrfK: number;
  readonly k: number;
  readonly neighbours: number;
  readonly neighboursNeedEvidence: boolean;
  readonly aggregationK: number;
  readonly weights: Readonly<Record<Signal, number>>;
  readonly laneBalance: boolean;
  readonly imageRoundFilter: boolean;
  readonly aggregationBranch: boolean;
  readonly llmAnchors: boolean;
  readonly routing: boolean;
  readonly granularity: 'round' | 'unit';
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
   * described in the background then.
   * @default 'wait'
   */
  readonly describe?: 'wait' | 'background';
  /** Progress of long work: ingest, re-indexing and picture descriptions. */
  readonly onProgress?: ProgressCallback;
}

export const DEFAULT_MAX_TEXT_CHARS = 20_000;

export function normalizeRetrievalOptions(options: RetrievalOptions = {}, base?: NormalizedRetrievalOptions): NormalizedRetrievalOptions {
  const pick = <T>(value: T | undefined, fallback: T): T => (value === undefined ? fallback : value);
  const defaults: NormalizedRetrievalOptions = base ?? {
    poolSize: 20,
    rrfK: 60,
    k: 12,
    neighbours: 1,
    neighboursNeedEvidence: true,
    aggregationK: 30,
    weights: { bm25: 1, dense: 1, image: 1, 'caption-anchor': 1, 'image-echo': 1 },
    laneBalance: true,
    imageRoundFilter: true,
    aggregationBranch: true,
    llmAnchors: true,
    routing: true,
    granularity: 'round',
  };
  return {
    poolSize: pick(options.poolSize, defaults.poolSize),
    rrfK: pick(options.rrfK, defaults.rrfK),
    k: pick(options.k, defaults.k),
    neighbours: pick(options.neighbours, defaults.neighbours),
    neighboursNeedEvidence: pick(options.neighboursNeedEvidence, defaults.neighboursNeedEvidence),
    aggregationK: pick(options.aggregationK, defaults.aggregationK),
    weights: { ...defaults.weights, ...definedEntries(options.weights ?? {}) },
    laneBalance: pick(options.laneBalance, defaults.laneBalance),
    imageRoundFilter: pick(options.imageRoundFilter, defaults.imageRoundFilter),
    aggregationBranch: pick(options.aggregationBranch, defaults.aggregationBranch),
    llmAnchors: pick(options.llmAnchors, defaults.llmAnchors),
    routing: pick(options.routing, defaults.routing),
    granularity: pick(options.granularity, defaults.granularity),
  };
}

function definedEntries<T extends object>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Partial<T>;
}
