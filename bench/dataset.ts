import type { Query, RoundInput } from 'vmem';

/** The benchmarks this command knows how to read. */
export type DatasetName = 'memgallery' | 'locomo';

/** One question with its gold evidence, ready to ask a memory. */
export interface BenchQuestion {
  /** `<conversation id>#<index in the file>`, for error messages and debugging. */
  readonly id: string;
  /** Mem-Gallery `point` (TTL, VS…) or a LoCoMo category name (multi-hop…). */
  readonly category: string;
  readonly query: Query;
  /** Reference answer, as a string even when the data set stores a number. */
  readonly answer: string;
  /** Ids of the rounds that hold the evidence; never empty for a scored question. */
  readonly goldRounds: readonly string[];
  /** Image ids the answer names (Mem-Gallery VS); undefined where the metric does not apply. */
  readonly goldImages?: readonly string[];
}

/** One memory's worth of data: a Mem-Gallery dialogue file or a LoCoMo conversation. */
export interface BenchConversation {
  readonly id: string;
  /** Rounds in history order, each with a stable `id`. */
  readonly rounds: readonly RoundInput[];
  /** Only the questions that can be scored. */
  readonly questions: readonly BenchQuestion[];
  /** Questions whose gold answer is that the memory never mentions it (Mem-Gallery's AR): the abstention table's near-topic kind. */
  readonly notMentioned?: readonly Pick<BenchQuestion, 'id' | 'query'>[];
  /** The conversation's speakers in order of appearance (LoCoMo), to put this conversation's names into another's questions. */
  readonly speakers?: readonly string[];
}

/** How many questions were read, scored and left out (and why). */
export interface QuestionCounts {
  total: number;
  scored: number;
  /** Reason → number of questions excluded for it. */
  excluded: Record<string, number>;
  /** What happened to the gold round ids (`clue` / `evidence`). */
  evidenceIds: EvidenceIdCounts;
}

/** Gold ids that could not be mapped to a round, counted rather than silently dropped. */
export interface EvidenceIdCounts {
  total: number;
  /** Not of the expected form, e.g. LoCoMo's `D` or `D:11:26` where `D<session>:<turn>` is meant. */
  malformed: number;
  /** Well-formed but naming a turn the conversation does not have. */
  missing: number;
}

/** A whole benchmark, loaded and converted. */
export interface BenchDataset {
  readonly name: DatasetName;
  readonly conversations: readonly BenchConversation[];
  readonly questions: QuestionCounts;
}

/** A conversation as one loader read it, with the counts of its own questions. */
export interface ParsedConversation {
  readonly conversation: BenchConversation;
  readonly counts: QuestionCounts;
}

/** A fresh, all-zero counter. */
export function emptyCounts(): QuestionCounts {
  return { total: 0, scored: 0, excluded: {}, evidenceIds: { total: 0, malformed: 0, missing: 0 } };
}

/** Adds `n` to a reason's counter. */
export function countExcluded(counts: QuestionCounts, reason: string, n = 1): void {
  counts.excluded[reason] = (counts.excluded[reason] ?? 0) + n;
}

/**
 * Keeps the first `limit` conversations (all when undefined) in the order read and sums their
 * question counts, so `--limit` runs report what they actually asked.
 */
export function assembleDataset(name: DatasetName, parsed: readonly ParsedConversation[], limit?: number): BenchDataset {
  const kept = limit === undefined ? parsed : parsed.slice(0, limit);
  const total = emptyCounts();
  for (const { counts } of kept) {
    total.total += counts.total;
    total.scored += counts.scored;
    for (const [reason, n] of Object.entries(counts.excluded)) countExcluded(total, reason, n);
    total.evidenceIds.total += counts.evidenceIds.total;
    total.evidenceIds.malformed += counts.evidenceIds.malformed;
    total.evidenceIds.missing += counts.evidenceIds.missing;
  }
  return { name, conversations: kept.map((p) => p.conversation), questions: total };
}
