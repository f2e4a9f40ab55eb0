import type { RetrievalOptions } from 'vmem';
import { normalizeRetrievalOptions, withAblation, type RetrievalAblation } from 'vmem/internal';

/** A retrieval configuration the benchmark compares; every system runs through `memory.retrieve`. */
export interface BenchSystem {
  readonly name: string;
  readonly options: RetrievalOptions;
  /** What the system returns: whole rounds (blocks) or bare units. Decides how its context is measured. */
  readonly level: 'round' | 'unit';
  /** True for the systems that also run at a budget matched to `full`. */
  readonly matchable: boolean;
  /**
   * A text-only baseline reads a question's picture as its caption appended to the question (in
   * caption-proxy mode the caption is all there is of the picture), so it is not handicapped on
   * questions about an attached picture.
   */
  readonly pictureAsText?: boolean;
  /** Asks the memories whose lanes keep float32 vectors (`--float-vectors`) instead of the int8 ones. */
  readonly floatVectors?: boolean;
}

/** Every system stays LLM-free (also in `--llm` mode, where the memory has a provider), so they measure retrieval alone. */
const NO_LLM: RetrievalOptions = { llmAnchors: false };

/** No routing and no stage of `full`: what any retrieval system could do with the same lanes. */
const PLAIN: RetrievalAblation = {
  routing: false,
  aggregationBranch: false,
  imageRoundFilter: false,
  timeExpressions: false,
  contentQuery: false,
  bm25Over: 'unit',
  bm25Floor: 0,
  context: 'window',
};

/** Reading the question: the four-case router with its scopes, the aggregation branch, named times, content words. */
const ROUTED: RetrievalAblation = { ...PLAIN, routing: true, aggregationBranch: true, aggregationContext: false, imageRoundFilter: true, timeExpressions: true, contentQuery: true };

/** Rounds as the unit of ranking: whole-round BM25 documents (weak hits dropped) and V-Mem's ±1 window. */
const ROUNDS: RetrievalAblation = { ...ROUTED, granularity: 'round', bm25Over: 'round', bm25Floor: 0.1, aggregationContext: true };

/** Every signal the core knows, from its default weights: a new signal is off in the baselines unless named. */
const SIGNALS = Object.keys(normalizeRetrievalOptions().weights);

const only = (signals: readonly string[]): RetrievalOptions['weights'] => Object.fromEntries(SIGNALS.map((signal) => [signal, signals.includes(signal) ? 1 : 0]));

/** The ladder below `full` has no word vectors: matching words softly is one of the stages `full` adds. */
const WITHOUT_SIMILAR_WORDS: RetrievalOptions = { ...NO_LLM, weights: { 'similar-words': 0 } };

/**
 * The systems of one run. Baselines:
 * - `bm25`: rounds by BM25 over each round's whole text, no context;
 * - `dense`: rounds by text-lane cosine (turn texts and captions), no context;
 * - `bm25-window`: `bm25` plus every ±1 same-session neighbour (never counted against k);
 * - `hybrid-window`: BM25 over rounds and dense, by reciprocal rank fusion (κ = 60), plus the same window.
 * The four read a question's picture as its caption. The ablation ladder, each step adding to the last:
 * - `vanilla`: every lane the query supports, one fusion over units, bare units returned;
 * - `routed`: reading the question (four-case router, aggregation branch, named times, content words);
 * - `rounds`: rounds as the unit (round documents, BM25 floor, V-Mem's ±1 window);
 * - `full`: the core's defaults, which add the scored context rule and the similar-words signal.
 * Every system keeps every ranked hit (`dropWeakHits` is off by default); `--stages` measures turning it on.
 */
export const BENCH_SYSTEMS: readonly BenchSystem[] = [
  { name: 'bm25', level: 'round', matchable: true, pictureAsText: true, options: withAblation({ ...NO_LLM, weights: only(['bm25']), neighbours: 0 }, { ...PLAIN, bm25Over: 'round' }) },
  { name: 'dense', level: 'round', matchable: true, pictureAsText: true, options: withAblation({ ...NO_LLM, weights: only(['dense']), neighbours: 0 }, PLAIN) },
  { name: 'bm25-window', level: 'round', matchable: true, pictureAsText: true, options: withAblation({ ...NO_LLM, weights: only(['bm25']), neighbours: 1, k: 10 }, { ...PLAIN, bm25Over: 'round' }) },
  {
    name: 'hybrid-window',
    level: 'round',
    matchable: true,
    pictureAsText: true,
    options: withAblation({ ...NO_LLM, weights: only(['bm25', 'dense']), neighbours: 1, rrfK: 60, k: 10 }, { ...PLAIN, bm25Over: 'round' }),
  },
  { name: 'vanilla', level: 'unit', matchable: true, options: withAblation({ ...WITHOUT_SIMILAR_WORDS, neighbours: 0 }, { ...PLAIN, granularity: 'unit' }) },
  { name: 'routed', level: 'unit', matchable: true, options: withAblation({ ...WITHOUT_SIMILAR_WORDS, neighbours: 0 }, { ...ROUTED, granularity: 'unit' }) },
  { name: 'rounds', level: 'round', matchable: true, options: withAblation({ ...WITHOUT_SIMILAR_WORDS, neighbours: 1, k: 10 }, ROUNDS) },
  { name: 'full', level: 'round', matchable: false, options: NO_LLM },
];

/**
 * `--stages`: `full`, the two other context rules, and `full` with one stage turned off at a time,
 * to measure what each stage adds (curves only).
 */
export const STAGE_SYSTEMS: readonly BenchSystem[] = [
  { name: 'full', level: 'round', matchable: false, options: NO_LLM },
  ...(
    [
      ['context: V-Mem ±1 window', { context: 'window' }],
      ['context: ±1 window, evidence only', { context: 'evidence-window' }],
      ['− similar words', {}, { weights: { 'similar-words': 0 } }],
      ['+ drop weak hits', {}, { dropWeakHits: true }],
      ['− session share', { sessionShare: 0 }],
      ['− neighbour share', { neighbourShare: 0 }],
      ['− time expressions', { timeExpressions: false }],
      ['− content words', { contentQuery: false }],
      ['− BM25 floor', { bm25Floor: 0 }],
      ['− round documents', { bm25Over: 'unit' }],
      ['− aggregation context', { aggregationContext: false }],
      ['− aggregation branch', { aggregationBranch: false }],
      ['− picture words', { pictureWords: false }],
      ['− image-round filter', { imageRoundFilter: false }],
      ['− routing', { routing: false }],
    ] as const
  ).map(([name, ablation, options]: readonly [string, RetrievalAblation, RetrievalOptions?]): BenchSystem => ({ name, level: 'round', matchable: false, options: withAblation({ ...NO_LLM, ...options }, ablation) })),
];

/** The system whose budget the matched systems copy. */
export const REFERENCE_SYSTEM = 'full';

/** Name of `full` over float32 vectors (`--float-vectors`). */
const FLOAT_VECTORS_SYSTEM = 'full-float32';

/**
 * `--float-vectors`: the systems with `full-float32` right after `full`: the same options, asked of
 * memories built from the same vectors whose lanes keep them as float32 and score them exactly
 * (`withFloatVectors`), so the two differ only in what int8 vectors cost.
 */
export function withFloatVectorsSystem(systems: readonly BenchSystem[]): BenchSystem[] {
  return systems.flatMap((system) => (system.name === REFERENCE_SYSTEM ? [system, { ...system, name: FLOAT_VECTORS_SYSTEM, floatVectors: true }] : [system]));
}

/** Name of a system's matched-budget run. */
export function matchedName(system: BenchSystem): string {
  return `${system.name}@matched`;
}

/**
 * A system at `k` (rounds for round-level systems, units for unit-level ones), named `name`. The
 * per-signal pool grows with k, since a list cut at k cannot be longer than the candidates fused.
 */
export function atK(system: BenchSystem, k: number, name = system.name): BenchSystem {
  const defaultPool = normalizeRetrievalOptions(system.options).poolSize;
  return { ...system, name, options: { ...system.options, k, poolSize: Math.max(defaultPool, k) } };
}
