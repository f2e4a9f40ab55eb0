import { normalizeRetrievalOptions, type RetrievalOptions } from '../src/options.js';

/** A retrieval configuration the benchmark compares; every system runs through `memory.retrieve`. */
export interface BenchSystem {
  readonly name: string;
  readonly options: RetrievalOptions;
  /** What the system returns: whole rounds (blocks) or bare units. Decides how its context is measured. */
  readonly level: 'round' | 'unit';
  /** True for the plain baselines that also run at a budget matched to `full`. */
  readonly matchable: boolean;
}

/**
 * Options every system shares: retrieval stays LLM-free (also in `--llm` mode, where the memory
 * has a provider), so the six systems measure retrieval alone.
 */
const NO_LLM: RetrievalOptions = { llmAnchors: false };

const PLAIN: RetrievalOptions = { ...NO_LLM, routing: false, neighbours: 0, aggregationBranch: false, imageRoundFilter: false };

/**
 * The systems of one run, weakest first:
 * - `bm25`: rounds by BM25 over their text units and captions (no other signal, no neighbours);
 * - `dense`: rounds by text-lane cosine only (turn texts and captions; the image lane is off);
 * - `vanilla`: every lane the query supports, one fusion over units, bare units returned;
 * - `routed`: vanilla plus the four-case routing;
 * - `rounds`: routed plus round matching and ±1 neighbour blocks (every neighbour);
 * - `full`: the core's defaults (aggregation branch and image-round filter included).
 */
export const BENCH_SYSTEMS: readonly BenchSystem[] = [
  { name: 'bm25', level: 'round', matchable: true, options: { ...PLAIN, weights: { bm25: 1, dense: 0, image: 0, 'caption-anchor': 0, 'image-echo': 0 } } },
  { name: 'dense', level: 'round', matchable: true, options: { ...PLAIN, weights: { bm25: 0, dense: 1, image: 0, 'caption-anchor': 0, 'image-echo': 0 } } },
  { name: 'vanilla', level: 'unit', matchable: true, options: { ...PLAIN, granularity: 'unit' } },
  { name: 'routed', level: 'unit', matchable: true, options: { ...PLAIN, routing: true, granularity: 'unit' } },
  { name: 'rounds', level: 'round', matchable: false, options: { ...NO_LLM, routing: true, granularity: 'round', aggregationBranch: false, imageRoundFilter: false, neighboursNeedEvidence: false } },
  { name: 'full', level: 'round', matchable: false, options: { ...NO_LLM } },
];

/** The system whose budget the matched baselines copy. */
export const REFERENCE_SYSTEM = 'full';

/** Name of a baseline's matched-budget run. */
export function matchedName(system: BenchSystem): string {
  return `${system.name}@matched`;
}

/**
 * A baseline at hit count `k` (rounds for round-level systems, units for unit-level ones). The
 * per-signal pool grows with k, since a list cut at k cannot be longer than the candidates fused.
 */
export function atBudget(system: BenchSystem, k: number): BenchSystem {
  const defaultPool = normalizeRetrievalOptions(system.options).poolSize;
  return { ...system, name: matchedName(system), options: { ...system.options, k, poolSize: Math.max(defaultPool, k) } };
}
