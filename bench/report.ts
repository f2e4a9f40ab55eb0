import type { EncoderIds } from 'vmem';
import type { DatasetName, QuestionCounts } from './dataset.js';
import { percentile, summarize, summarizeByCategory, type MetricSummary, type QuestionScore } from './metrics.js';
import type { AbstentionRun, BenchRun, SystemRun, TemporalRow } from './run.js';

/** The image-lane mode of every run here: images have no bytes, so captions stand in for pixels. */
export const CAPTION_PROXY_MODE = 'caption-proxy';

/** A summary row of the report: the metrics, plus the judge's mean score in `--llm` runs. */
export interface ReportEntry extends MetricSummary {
  /** Mean snapped judge score (0, 0.5, 1 per question). */
  readonly judge?: number;
}

/** One system in the report. */
export interface SystemReport {
  readonly overall: ReportEntry;
  readonly byCategory: Readonly<Record<string, ReportEntry>>;
  /** Shared by all systems: one memory build per conversation. */
  readonly build: { readonly rounds: number; readonly seconds: number; readonly roundsPerSecond: number };
  /** Per retrieve call (per answer call for `full+llm`). */
  readonly query: { readonly p50ms: number; readonly p95ms: number };
  /** Matched-budget runs: hits per question (rounds or units). */
  readonly k?: number;
  /** Matched-budget runs only, and only when false: no k reached the target budget. */
  readonly budgetReached?: boolean;
}

/** The `--json` output. */
export interface BenchReport {
  readonly dataset: DatasetName;
  /** `caption-proxy`, or `caption-proxy+llm` when answers were generated and judged. */
  readonly mode: string;
  /**
   * The encoders, how they were made (`kind`), model load time, and how much of the build was spent
   * embedding (`buildEmbedSeconds`, over `buildTextsEmbedded` distinct texts).
   */
  readonly encoders: EncoderIds & {
    readonly kind: string;
    readonly loadSeconds: number;
    readonly buildEmbedSeconds: number;
    readonly buildTextsEmbedded: number;
    /** The word vectors of the similar-words signal, when the memories had them. */
    readonly wordVectors?: string;
    readonly llmModel?: string;
    readonly judgeModel?: string;
    /** Set when `--cache-vectors` served text vectors from disk: the build then did not embed them. */
    readonly vectorCache?: VectorCacheUse;
  };
  readonly questions: QuestionCounts;
  readonly systems: Readonly<Record<string, SystemReport>>;
  /** Recall against budget, per system: at each target mean of returned rounds, the k that comes nearest. */
  readonly curves?: Readonly<Record<string, readonly CurveEntry[]>>;
  /** How `full` tells answerable questions from those memory cannot answer (confidence and `relevant`), at its default `minConfidence`. */
  readonly abstention?: AbstentionRun;
  /** The temporal set under `full`, per phrase kind, with time parsing and without. */
  readonly temporal?: readonly TemporalRow[];
}

/** One point of a system's recall-vs-budget curve. */
export interface CurveEntry {
  /** The budget aimed at (mean returned rounds). */
  readonly target: number;
  /** The mean returned rounds the chosen k gave. */
  readonly rounds: number;
  readonly k: number;
  readonly allClue: number;
  readonly anyClue: number;
  readonly meanChars: number;
  /** Only when false: no k returned that many rounds. */
  readonly reached?: boolean;
}

/** How a run used the on-disk text-vector cache. */
export interface VectorCacheUse {
  readonly file: string;
  /** Distinct texts whose vectors came from disk instead of the encoder. */
  readonly servedTexts: number;
}

/** What the run itself does not know: how the encoders were made and which LLMs answered. */
export interface ReportContext {
  readonly dataset: DatasetName;
  readonly questions: QuestionCounts;
  readonly encoderKind: string;
  readonly encoderLoadSeconds: number;
  readonly wordVectorsId?: string;
  readonly vectorCache?: VectorCacheUse;
  readonly llmModel?: string;
  readonly judgeModel?: string;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** Shapes a run into the report, numbers rounded for reading (recall 4 digits, budgets 2, times 2–3). */
export function buildReport(run: BenchRun, context: ReportContext): BenchReport {
  const build = {
    rounds: run.build.rounds,
    seconds: round(run.build.seconds, 2),
    roundsPerSecond: round(run.build.seconds > 0 ? run.build.rounds / run.build.seconds : 0, 1),
  };
  const systems = Object.fromEntries(run.systems.map((system) => [system.name, systemReport(system, build)]));
  const curves = Object.fromEntries(
    Object.entries(run.curves).map(([name, points]) => [
      name,
      points.map((point) => ({
        target: point.target,
        rounds: round(point.summary.meanRounds, 2),
        k: point.k,
        allClue: round(point.summary.allClue, 4),
        anyClue: round(point.summary.anyClue, 4),
        meanChars: round(point.summary.meanChars, 1),
        ...(point.reached ? {} : { reached: false }),
      })),
    ]),
  );
  return {
    dataset: context.dataset,
    mode: context.llmModel === undefined ? CAPTION_PROXY_MODE : `${CAPTION_PROXY_MODE}+llm`,
    encoders: {
      ...run.encoders,
      kind: context.encoderKind,
      loadSeconds: round(context.encoderLoadSeconds, 2),
      buildEmbedSeconds: round(run.build.embedSeconds, 2),
      buildTextsEmbedded: run.build.textsEmbedded,
      ...(context.wordVectorsId !== undefined ? { wordVectors: context.wordVectorsId } : {}),
      ...(context.llmModel !== undefined ? { llmModel: context.llmModel } : {}),
      ...(context.judgeModel !== undefined ? { judgeModel: context.judgeModel } : {}),
      ...(context.vectorCache !== undefined ? { vectorCache: context.vectorCache } : {}),
    },
    questions: context.questions,
    systems,
    ...(Object.keys(curves).length > 0 ? { curves } : {}),
    ...(run.abstention
      ? {
          abstention: {
            ...run.abstention,
            kinds: run.abstention.kinds.map((kind) => ({ ...kind, notRelevant: round(kind.notRelevant, 4), ...(kind.auroc === undefined ? {} : { auroc: round(kind.auroc, 4) }) })),
            allClueBefore: round(run.abstention.allClueBefore, 4),
            allClueAfter: round(run.abstention.allClueAfter, 4),
          },
        }
      : {}),
    ...(run.temporal
      ? {
          temporal: run.temporal.map((row) => ({
            ...row,
            openFirstWith: round(row.openFirstWith, 4),
            openFirstWithout: round(row.openFirstWithout, 4),
            top1With: round(row.top1With, 4),
            top1Without: round(row.top1Without, 4),
            allClueWith: round(row.allClueWith, 4),
            allClueWithout: round(row.allClueWithout, 4),
          })),
        }
      : {}),
  };
}

function systemReport(system: SystemRun, build: SystemReport['build']): SystemReport {
  const byCategory: Record<string, ReportEntry> = {};
  const judged = groupJudgeScores(system);
  for (const [category, summary] of Object.entries(summarizeByCategory(system.scores))) byCategory[category] = entry(summary, judged.get(category));
  return {
    overall: entry(summarize(system.scores), system.judgeScores),
    byCategory,
    build,
    query: { p50ms: round(percentile(system.latenciesMs, 50), 3), p95ms: round(percentile(system.latenciesMs, 95), 3) },
    ...(system.matched ? { k: system.matched.k, ...(system.matched.reached ? {} : { budgetReached: false }) } : {}),
  };
}

function groupJudgeScores(system: SystemRun): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  system.judgeScores?.forEach((score, i) => {
    const category = (system.scores[i] as QuestionScore).category;
    groups.set(category, [...(groups.get(category) ?? []), score]);
  });
  return groups;
}

function entry(summary: MetricSummary, judgeScores: readonly number[] | undefined): ReportEntry {
  return {
    n: summary.n,
    allClue: round(summary.allClue, 4),
    anyClue: round(summary.anyClue, 4),
    meanRounds: round(summary.meanRounds, 2),
    meanChars: round(summary.meanChars, 1),
    ...(summary.goldImages !== undefined ? { goldImages: round(summary.goldImages, 4) } : {}),
    ...(judgeScores && judgeScores.length > 0 ? { judge: round(judgeScores.reduce((a, b) => a + b, 0) / judgeScores.length, 4) } : {}),
  };
}
