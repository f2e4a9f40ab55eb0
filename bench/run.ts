import {
  errorCode,
  isVmemError,
  LlmError,
  VmemError,
  type EncoderIds,
  type ImageEmbedder,
  type WordVectors,
  type LlmProvider,
  type Memory,
  type MemoryOptions,
  type Query,
  type RetrievalCase,
  type RetrievalResult,
} from 'vmem';
import { normalizeRetrievalOptions, withAblation, withFloatVectors } from 'vmem/internal';
import type { BenchConversation, BenchDataset, BenchQuestion } from './dataset.js';
import { auroc, unanswerableQuestions } from './abstention.js';
import { judgeAnswer } from './judge.js';
import { TEMPORAL_KINDS, temporalQuestions, type TemporalKind } from './temporal.js';
import { findMatchedK } from './matched-budget.js';
import type { MemoTextEncoder } from './memo-encoder.js';
import { contextFromRounds, contextFromUnits, scoreQuestion, summarize, type MetricSummary, type QuestionScore } from './metrics.js';
import { silentProgress, type Progress } from './progress.js';
import { atK, BENCH_SYSTEMS, matchedName, REFERENCE_SYSTEM, type BenchSystem } from './systems.js';

/** The LLMs of an `--llm` run. */
export interface BenchLlm {
  /** Makes anchors and answers, through `memory.answer`. */
  readonly answerer: LlmProvider;
  /** Grades the answers; may be the same provider. */
  readonly judge: LlmProvider;
}

/** What one benchmark run needs. */
export interface RunBenchmarkOptions {
  readonly dataset: BenchDataset;
  /** `createMemory` from the library (injected so tests can run on tiny fakes). */
  readonly createMemory: (options: MemoryOptions) => Promise<Memory>;
  /** The text encoder, memoised: query timing turns its cache off, the budget search turns it on. */
  readonly textEncoder: MemoTextEncoder;
  readonly imageEncoder: ImageEmbedder;
  /** Word vectors every memory gets (the similar-words signal). */
  readonly wordVectors?: WordVectors;
  readonly llm?: BenchLlm;
  readonly progress?: Progress;
  /** @default BENCH_SYSTEMS */
  readonly systems?: readonly BenchSystem[];
  /** Budgets (mean returned rounds) at which every system's recall is measured; none when empty. @default [] */
  readonly curveBudgets?: readonly number[];
}

/** One point of a recall-vs-budget curve: the system at the k whose mean returned rounds is nearest `target`. */
export interface CurvePoint {
  readonly target: number;
  readonly k: number;
  /** False when no k returned that many rounds on average. */
  readonly reached: boolean;
  readonly summary: MetricSummary;
}

/** What one system did with one question, for `--details`. */
export interface QuestionDetail {
  readonly questionId: string;
  readonly case: RetrievalCase;
  /**
   * Per gold round (in the question's order): its 1-based position in the returned rounds, ranked as
   * the trace ranks them (fused hits first, then neighbours), or null when it was not returned.
   */
  readonly goldRanks: readonly (number | null)[];
}

/** One system's per-question outcomes, in question order. */
export interface SystemRun {
  readonly name: string;
  readonly scores: readonly QuestionScore[];
  readonly details: readonly QuestionDetail[];
  readonly latenciesMs: readonly number[];
  /** Matched-budget runs: the k used and whether it reached the target budget. */
  readonly matched?: { readonly k: number; readonly reached: boolean };
  /** `--llm` runs: the judge's snapped score per question. */
  readonly judgeScores?: readonly number[];
}

/** How `full` tells questions memory can answer from those it cannot, at its default `minConfidence`. */
export interface AbstentionRun {
  readonly minConfidence: number;
  /** Per kind of question: how many, the AUROC of `result.confidence` against the answerable ones, and the share judged not relevant. */
  readonly kinds: readonly { readonly kind: 'answerable' | 'foreign' | 'near-topic'; readonly n: number; readonly auroc?: number; readonly notRelevant: number }[];
  /** Answerable allClue as `full` returns it, and with `dropWeakHits` at the default `minConfidence`. */
  readonly allClueBefore: number;
  readonly allClueAfter: number;
}

/** One phrase kind of the temporal set (`temporal.ts`), with time parsing and without. */
export interface TemporalRow {
  readonly kind: TemporalKind;
  /** Open questions ("What did we talk about last weekend?") and the share whose first hit falls in the span meant. */
  readonly open: number;
  readonly openFirstWith: number;
  readonly openFirstWithout: number;
  /** Content questions and their top-1 (first hit is gold) and allClue. */
  readonly content: number;
  readonly top1With: number;
  readonly top1Without: number;
  readonly allClueWith: number;
  readonly allClueWithout: number;
}

/** Everything measured in one run, before it is shaped into a report. */
export interface BenchRun {
  readonly encoders: EncoderIds;
  /** `embedSeconds`: time inside the text encoder during the build (the rest is indexing and storage). */
  readonly build: { readonly rounds: number; readonly seconds: number; readonly embedSeconds: number; readonly textsEmbedded: number };
  readonly systems: readonly SystemRun[];
  /** Per system, its curve (empty when no budgets were asked for). */
  readonly curves: Readonly<Record<string, readonly CurvePoint[]>>;
  /** Present when `full` ran. */
  readonly abstention?: AbstentionRun;
  /** The temporal set under `full`, per phrase kind; present when `full` ran. */
  readonly temporal?: readonly TemporalRow[];
}

interface BuiltMemory {
  readonly conversation: BenchConversation;
  readonly memory: Memory;
  /** The same rounds in a memory of float32 vectors, when a system asks one (`BenchSystem.floatVectors`). */
  readonly floatMemory?: Memory;
}

/** Name of the system that answers with the LLM in `--llm` runs. */
export const LLM_SYSTEM = 'full+llm';

/**
 * Builds one memory per conversation, asks every question under every system, runs the plain
 * baselines again at `full`'s budget, and (with `llm`) answers and grades. Memories are closed at the end.
 */
export async function runBenchmark(options: RunBenchmarkOptions): Promise<BenchRun> {
  const progress = options.progress ?? silentProgress;
  const systems = options.systems ?? BENCH_SYSTEMS;
  const before = { seconds: options.textEncoder.embedSeconds, texts: options.textEncoder.misses };
  const { built, seconds } = await buildMemories(options, progress);
  const embedSeconds = options.textEncoder.embedSeconds - before.seconds;
  const textsEmbedded = options.textEncoder.misses - before.texts;
  try {
    if (systems.some((system) => system.floatVectors)) await addFloatMemories(built, options, progress);
    const encoders = built[0]?.memory.encoders ?? { text: { id: options.textEncoder.id, dimension: options.textEncoder.dimension } };
    const runs: SystemRun[] = [];
    const atKs = new Map(systems.map((system) => [system.name, new Map<number, Promise<SystemRun>>()]));
    // Untimed runs at a k, each asked once: the budget search and the curves share them.
    const untimed = (system: BenchSystem, k: number): Promise<SystemRun> => {
      const cache = atKs.get(system.name)!;
      let run = cache.get(k);
      if (!run) {
        run = askAll(built, atK(system, k), options.textEncoder, progress, false);
        cache.set(k, run);
      }
      return run;
    };
    for (const system of systems) runs.push(await askAll(built, system, options.textEncoder, progress, true));
    const reference = runs.find((run) => run.name === REFERENCE_SYSTEM);
    if (reference) {
      const target = summarize(reference.scores).meanRounds;
      for (const system of systems.filter((s) => s.matchable)) runs.push(await runMatched(built, system, target, untimed, options.textEncoder, progress));
    }
    const curves: Record<string, CurvePoint[]> = {};
    for (const system of options.curveBudgets?.length ? systems : []) {
      curves[system.name] = [];
      for (const target of options.curveBudgets!) {
        const found = await findMatchedK(async (k) => summarize((await untimed(system, k)).scores).meanRounds, target, maxKOf(built, system));
        curves[system.name]!.push({ target, k: found.k, reached: found.reached, summary: summarize((await untimed(system, found.k)).scores) });
      }
      progress.done(`${system.name}: curve at ${options.curveBudgets!.join(', ')} rounds`);
    }
    const full = systems.find((system) => system.name === REFERENCE_SYSTEM);
    const abstention = full ? await measureAbstention(built, full, options.textEncoder, progress) : undefined;
    const temporal = full ? await measureTemporal(built, full, progress) : undefined;
    if (options.llm) runs.push(await answerAll(built, options.llm, progress));
    const rounds = built.reduce((sum, b) => sum + b.conversation.rounds.length, 0);
    return { encoders, build: { rounds, seconds, embedSeconds, textsEmbedded }, systems: runs, curves, ...(abstention ? { abstention } : {}), ...(temporal ? { temporal } : {}) };
  } finally {
    await closeAll(built);
  }
}

async function buildMemories(options: RunBenchmarkOptions, progress: Progress): Promise<{ built: BuiltMemory[]; seconds: number }> {
  const { conversations } = options.dataset;
  const totalRounds = conversations.reduce((sum, c) => sum + c.rounds.length, 0);
  const built: BuiltMemory[] = [];
  let doneRounds = 0;
  options.textEncoder.useCache = true; // Caption-proxy image vectors reuse the captions' text vectors.
  const start = performance.now();
  try {
    for (const [i, conversation] of conversations.entries()) {
      const memory = await options.createMemory(memoryOptions(options));
      built.push({ conversation, memory });
      const label = `build ${i + 1}/${conversations.length} ${conversation.id}`;
      await memory.add(conversation.rounds, {
        onProgress: (event) => {
          if (event.status === 'progress') progress.update(`${label}: ${doneRounds + Math.round((event.loaded / Math.max(1, event.total)) * conversation.rounds.length)}/${totalRounds} rounds`);
        },
      });
      doneRounds += conversation.rounds.length;
      progress.update(`${label}: ${doneRounds}/${totalRounds} rounds`);
    }
  } catch (error) {
    await closeAll(built);
    throw error;
  }
  const seconds = (performance.now() - start) / 1000;
  progress.done(`built ${conversations.length} memories, ${totalRounds} rounds in ${seconds.toFixed(1)} s`);
  return { built, seconds };
}

function memoryOptions(options: RunBenchmarkOptions): MemoryOptions {
  return {
    textEncoder: options.textEncoder,
    imageEncoder: options.imageEncoder,
    ...(options.wordVectors ? { wordVectors: options.wordVectors } : {}),
    ...(options.llm ? { llm: options.llm.answerer } : {}),
  };
}

/**
 * Builds every conversation again into a memory of float32 vectors, after the timed build (so the
 * build figures stay the int8 memories'). The memo serves the vectors the first build embedded.
 */
async function addFloatMemories(built: BuiltMemory[], options: RunBenchmarkOptions, progress: Progress): Promise<void> {
  options.textEncoder.useCache = true;
  for (const [i, entry] of built.entries()) {
    progress.update(`build float32 ${i + 1}/${built.length} ${entry.conversation.id}`);
    const floatMemory = await options.createMemory(withFloatVectors(memoryOptions(options)));
    built[i] = { ...entry, floatMemory };
    await floatMemory.add(entry.conversation.rounds);
  }
  progress.done(`built ${built.length} memories of float32 vectors`);
}

async function closeAll(built: readonly BuiltMemory[]): Promise<void> {
  for (const { memory, floatMemory } of built) {
    await memory.close();
    await floatMemory?.close();
  }
}

function questionCount(built: readonly BuiltMemory[]): number {
  return built.reduce((sum, b) => sum + b.conversation.questions.length, 0);
}

/**
 * Asks every question under one system. `timed` runs embed each question afresh so the latency is
 * what a user would see; untimed runs (the budget search) reuse question vectors.
 */
async function askAll(built: readonly BuiltMemory[], system: BenchSystem, encoder: MemoTextEncoder, progress: Progress, timed: boolean): Promise<SystemRun> {
  const total = questionCount(built);
  const scores: QuestionScore[] = [];
  const details: QuestionDetail[] = [];
  const latenciesMs: number[] = [];
  encoder.useCache = !timed;
  for (const { conversation, memory: int8Memory, floatMemory } of built) {
    const memory = system.floatVectors ? floatMemory! : int8Memory;
    for (const question of conversation.questions) {
      progress.update(`${system.name}${system.options.k === undefined ? '' : ` k=${system.options.k}`}: question ${scores.length + 1}/${total}`);
      const start = performance.now();
      const result = await memory.retrieve(queryFor(system, question.query), system.options).catch((error: unknown) => {
        throw withQuestion(error, question);
      });
      latenciesMs.push(performance.now() - start);
      const context = system.level === 'unit' ? contextFromUnits(result) : contextFromRounds(result);
      scores.push(scoreQuestion(question, context));
      details.push(detailOf(question, result, context.roundIds));
    }
  }
  if (timed) progress.done(`${system.name}: ${total} questions`);
  return { name: system.name, scores, details, latenciesMs };
}

/** A text-only baseline reads the question's picture as its caption, appended to the question. */
function queryFor(system: BenchSystem, query: Query): Query {
  const caption = query.image?.caption;
  if (!system.pictureAsText || caption === undefined) return query;
  return { text: [query.text ?? '', caption].join(' ').trim() };
}

function maxKOf(built: readonly BuiltMemory[], system: BenchSystem): number {
  const largest = Math.max(...built.map((b) => b.conversation.rounds.length));
  // A round holds at most a few units (two turns, their captions and images); 4× bounds the search.
  return (system.level === 'unit' ? 4 : 1) * largest;
}

async function runMatched(
  built: readonly BuiltMemory[],
  system: BenchSystem,
  target: number,
  untimed: (system: BenchSystem, k: number) => Promise<SystemRun>,
  encoder: MemoTextEncoder,
  progress: Progress,
): Promise<SystemRun> {
  const found = await findMatchedK(async (k) => summarize((await untimed(system, k)).scores).meanRounds, target, maxKOf(built, system));
  const run = await askAll(built, atK(system, found.k, matchedName(system)), encoder, progress, true);
  return { ...run, matched: { k: found.k, reached: found.reached } };
}

async function answerAll(built: readonly BuiltMemory[], llm: BenchLlm, progress: Progress): Promise<SystemRun> {
  const total = questionCount(built);
  const scores: QuestionScore[] = [];
  const details: QuestionDetail[] = [];
  const latenciesMs: number[] = [];
  const judgeScores: number[] = [];
  for (const { conversation, memory } of built) {
    for (const question of conversation.questions) {
      progress.update(`${LLM_SYSTEM}: answering and judging ${scores.length + 1}/${total}`);
      try {
        const start = performance.now();
        const answered = await memory.answer(question.query);
        latenciesMs.push(performance.now() - start);
        const context = contextFromRounds(answered.retrieval);
        scores.push(scoreQuestion(question, context));
        details.push(detailOf(question, answered.retrieval, context.roundIds));
        const verdict = await judgeAnswer(llm.judge, question.query.text ?? '', question.answer, answered.answer);
        judgeScores.push(verdict.score);
      } catch (error) {
        throw withQuestion(error, question);
      }
    }
  }
  progress.done(`${LLM_SYSTEM}: ${total} questions answered and judged`);
  return { name: LLM_SYSTEM, scores, details, latenciesMs, judgeScores };
}

/**
 * Asks every memory its own questions (as `full` returns them, and with `dropWeakHits` at the default
 * `minConfidence`) and the questions it cannot answer (`abstention.ts`), under `full`'s options.
 */
async function measureAbstention(built: readonly BuiltMemory[], full: BenchSystem, encoder: MemoTextEncoder, progress: Progress): Promise<AbstentionRun> {
  encoder.useCache = true;
  const unanswerable = unanswerableQuestions(built.map((b) => b.conversation));
  const confidences: Record<'answerable' | 'foreign' | 'near-topic', number[]> = { answerable: [], foreign: [], 'near-topic': [] };
  const notRelevant: Record<'answerable' | 'foreign' | 'near-topic', number> = { answerable: 0, foreign: 0, 'near-topic': 0 };
  let before = 0;
  let after = 0;
  for (const { conversation, memory } of built) {
    progress.update(`abstention: ${conversation.id}`);
    for (const question of conversation.questions) {
      const open = await memory.retrieve(question.query, full.options);
      const result = await memory.retrieve(question.query, { ...full.options, dropWeakHits: true });
      confidences.answerable.push(result.confidence);
      if (!result.relevant) notRelevant.answerable++;
      if (scoreQuestion(question, contextFromRounds(open)).allClue) before++;
      if (scoreQuestion(question, contextFromRounds(result)).allClue) after++;
    }
    for (const question of unanswerable.get(conversation.id) ?? []) {
      const result = await memory.retrieve(question.query, full.options);
      confidences[question.kind].push(result.confidence);
      if (!result.relevant) notRelevant[question.kind]++;
    }
  }
  progress.done('abstention: answerable, foreign and near-topic questions asked');
  const answerable = confidences.answerable;
  return {
    minConfidence: normalizeRetrievalOptions(full.options).minConfidence,
    kinds: (['answerable', 'foreign', 'near-topic'] as const)
      .filter((kind) => confidences[kind].length > 0)
      .map((kind) => ({
        kind,
        n: confidences[kind].length,
        ...(kind === 'answerable' ? {} : { auroc: auroc(answerable, confidences[kind]) }),
        notRelevant: notRelevant[kind] / confidences[kind].length,
      })),
    allClueBefore: before / Math.max(1, answerable.length),
    allClueAfter: after / Math.max(1, answerable.length),
  };
}

/** The temporal set asked of `full` with time parsing and without, each question at its own `now`, of the rounds said before it. */
async function measureTemporal(built: readonly BuiltMemory[], full: BenchSystem, progress: Progress): Promise<TemporalRow[]> {
  const memoryOf = new Map(built.map((b) => [b.conversation.id, b.memory]));
  const questions = temporalQuestions(built.map((b) => b.conversation));
  const without = withAblation(full.options, { timeExpressions: false });
  const tally = new Map(TEMPORAL_KINDS.map((kind) => [kind, { open: 0, openFirstWith: 0, openFirstWithout: 0, content: 0, top1With: 0, top1Without: 0, allClueWith: 0, allClueWithout: 0 }]));
  for (const [at, question] of questions.entries()) {
    progress.update(`temporal set: question ${at + 1}/${questions.length}`);
    const memory = memoryOf.get(question.conversationId)!;
    const row = tally.get(question.kind)!;
    const ask = (options: BenchSystem['options']) => memory.retrieve(question.text, { ...options, now: question.now, filter: { timeRange: { to: question.now } } });
    const [timed, untimed] = [await ask(full.options), await ask(without)];
    const first = (result: RetrievalResult) => result.trace.find((entry) => entry.rank === 1)?.roundId;
    if (!question.goldRounds) {
      const inSpan = (result: RetrievalResult) => {
        const best = first(result);
        const round = result.blocks.flatMap((block) => block.rounds).find((candidate) => candidate.id === best);
        return round !== undefined && round.timestamp >= question.span.start && round.timestamp < question.span.end;
      };
      row.open++;
      if (inSpan(timed)) row.openFirstWith++;
      if (inSpan(untimed)) row.openFirstWithout++;
      continue;
    }
    const gold = { category: 'temporal', goldRounds: question.goldRounds };
    row.content++;
    if (question.goldRounds.includes(first(timed) ?? '')) row.top1With++;
    if (question.goldRounds.includes(first(untimed) ?? '')) row.top1Without++;
    if (scoreQuestion(gold, contextFromRounds(timed)).allClue) row.allClueWith++;
    if (scoreQuestion(gold, contextFromRounds(untimed)).allClue) row.allClueWithout++;
  }
  progress.done(`temporal set: ${questions.length} questions, with and without time parsing`);
  const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
  return [...tally].map(([kind, row]) => ({
    kind,
    open: row.open,
    openFirstWith: share(row.openFirstWith, row.open),
    openFirstWithout: share(row.openFirstWithout, row.open),
    content: row.content,
    top1With: share(row.top1With, row.content),
    top1Without: share(row.top1Without, row.content),
    allClueWith: share(row.allClueWith, row.content),
    allClueWithout: share(row.allClueWithout, row.content),
  }));
}

function detailOf(question: BenchQuestion, result: RetrievalResult, returned: ReadonlySet<string>): QuestionDetail {
  // The trace lists hits in fused order, then neighbours; a unit-level trace lists each round once.
  const ranked = [...new Set([...result.trace.map((entry) => entry.roundId), ...returned])].filter((id) => returned.has(id));
  const goldRanks = question.goldRounds.map((id) => {
    const at = ranked.indexOf(id);
    return at < 0 ? null : at + 1;
  });
  return { questionId: question.id, case: result.case, goldRanks };
}

/** The same error with the question it happened on, keeping its code (and HTTP status). */
function withQuestion(error: unknown, question: BenchQuestion): unknown {
  if (!isVmemError(error)) return error;
  const code = errorCode(error) ?? 'INVALID_INPUT';
  const message = `Question ${question.id} ("${question.query.text ?? ''}"): ${error.message}`;
  if (error instanceof LlmError && code.startsWith('LLM_')) {
    return new LlmError(code as ConstructorParameters<typeof LlmError>[0], message, { cause: error, ...(error.status !== undefined ? { status: error.status } : {}) });
  }
  return new VmemError(code, message, { cause: error });
}
