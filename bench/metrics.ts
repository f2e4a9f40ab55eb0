import { VmemError, type RetrievalResult } from 'vmem';
import type { BenchQuestion } from './dataset.js';

/** What a system handed back for one question, reduced to what the metrics need. */
export interface ReturnedContext {
  /** Distinct rounds in the context. */
  readonly roundIds: ReadonlySet<string>;
  /** Length of the context text in UTF-16 code units (JavaScript string length). */
  readonly chars: number;
  /** Images handed back, best first. */
  readonly imageIds: readonly string[];
}

/**
 * The context of a round-level system: every round in the blocks (neighbours included), counted
 * by its user and assistant text (which already holds `[Image: caption]`), and `result.images`.
 */
export function contextFromRounds(result: RetrievalResult): ReturnedContext {
  const roundIds = new Set<string>();
  let chars = 0;
  for (const block of result.blocks) {
    for (const round of block.rounds) {
      if (roundIds.has(round.id)) continue;
      roundIds.add(round.id);
      chars += round.user.text.length + round.assistant.text.length;
    }
  }
  return { roundIds, chars, imageIds: result.images.map((image) => image.id) };
}

/**
 * The context of a unit-level system: the bare units returned, counted by their own text; its rounds
 * are the distinct rounds of those units and its images the images those units belong to.
 */
export function contextFromUnits(result: RetrievalResult): ReturnedContext {
  if (result.units === undefined) {
    throw new VmemError('INVALID_INPUT', "A unit-level system got a result without `units`; retrieve() must fill `units` under granularity 'unit'.");
  }
  const roundIds = new Set<string>();
  const imageIds: string[] = [];
  let chars = 0;
  for (const unit of result.units) {
    roundIds.add(unit.roundId);
    chars += unit.text.length;
    if (unit.imageId !== undefined && !imageIds.includes(unit.imageId)) imageIds.push(unit.imageId);
  }
  return { roundIds, chars, imageIds };
}

/** One question's outcome under one system. */
export interface QuestionScore {
  readonly category: string;
  /** Every gold round is in the context. */
  readonly allClue: boolean;
  /** At least one gold round is in the context. */
  readonly anyClue: boolean;
  readonly rounds: number;
  readonly chars: number;
  /** Every gold image is among the returned images; undefined where the question has no gold images. */
  readonly goldImages?: boolean;
}

/** Scores one returned context against a question's gold evidence. */
export function scoreQuestion(question: Pick<BenchQuestion, 'category' | 'goldRounds' | 'goldImages'>, context: ReturnedContext): QuestionScore {
  const found = question.goldRounds.filter((roundId) => context.roundIds.has(roundId)).length;
  const goldImages = question.goldImages?.every((imageId) => context.imageIds.includes(imageId));
  return {
    category: question.category,
    allClue: found === question.goldRounds.length,
    anyClue: found > 0,
    rounds: context.roundIds.size,
    chars: context.chars,
    ...(goldImages !== undefined ? { goldImages } : {}),
  };
}

/** Means over a set of question scores: recall as a fraction of questions, budget per question. */
export interface MetricSummary {
  readonly n: number;
  readonly allClue: number;
  readonly anyClue: number;
  readonly meanRounds: number;
  readonly meanChars: number;
  /** Fraction over the questions that have gold images; absent when none do. */
  readonly goldImages?: number;
}

/** Summarises scores; all means are 0 for an empty set. */
export function summarize(scores: readonly QuestionScore[]): MetricSummary {
  const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  const withImages = scores.flatMap((s) => (s.goldImages === undefined ? [] : [s.goldImages ? 1 : 0]));
  return {
    n: scores.length,
    allClue: mean(scores.map((s) => (s.allClue ? 1 : 0))),
    anyClue: mean(scores.map((s) => (s.anyClue ? 1 : 0))),
    meanRounds: mean(scores.map((s) => s.rounds)),
    meanChars: mean(scores.map((s) => s.chars)),
    ...(withImages.length > 0 ? { goldImages: mean(withImages) } : {}),
  };
}

/** One summary per category, categories in order of first appearance. */
export function summarizeByCategory(scores: readonly QuestionScore[]): Record<string, MetricSummary> {
  const groups = new Map<string, QuestionScore[]>();
  for (const score of scores) {
    const group = groups.get(score.category);
    if (group) group.push(score);
    else groups.set(score.category, [score]);
  }
  return Object.fromEntries([...groups].map(([category, group]) => [category, summarize(group)]));
}

/** Nearest-rank percentile (`p` in 0–100) of a list of numbers; 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}
