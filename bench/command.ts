import { writeFile } from 'node:fs/promises';
import { createOpenAiProvider, isVmemError, type ImageEmbedder, type Memory, type MemoryOptions, type TextEmbedder, type WordVectors } from 'vmem';
import { BENCH_USAGE, HELP, parseBenchArgs, type BenchArgs, type LlmArgs } from './cli-args.js';
import { questionDetailLines } from './details.js';
import { loadDataset } from './load.js';
import { memoizeTextEncoder } from './memo-encoder.js';
import { createProgressLine, type ProgressStream } from './progress.js';
import { buildReport } from './report.js';
import { runBenchmark, type BenchLlm } from './run.js';
import { formatReport } from './tables.js';
import { openVectorCache } from './vector-cache.js';
import { BENCH_SYSTEMS, STAGE_SYSTEMS, withFloatVectorsSystem } from './systems.js';

/** The text encoder a run uses, and how to free it. */
export interface LoadedTextEncoder {
  readonly encoder: TextEmbedder;
  /** Word vectors for the memories (the similar-words signal), when the encoders come with them. */
  readonly wordVectors?: WordVectors;
  dispose(): Promise<void>;
}

/** What the command talks to; the real one uses the process streams and the real encoders. */
export interface CommandEnvironment {
  readonly stdout: ProgressStream;
  readonly stderr: ProgressStream;
  /** Loads the text encoder `--encoders` names (and `--hub-url` where it applies). */
  loadTextEncoder(args: BenchArgs): Promise<LoadedTextEncoder>;
  /** The caption-proxy image encoder over a text encoder. */
  captionProxy(text: TextEmbedder): ImageEmbedder;
  createMemory(options: MemoryOptions): Promise<Memory>;
}

/**
 * Runs the benchmark command: parse flags, load data and encoders, run, print tables to stdout
 * (progress to stderr), write `--json`. Resolves to the exit code: 0 done, 1 failed, 2 usage error.
 */
export async function runCommand(argv: readonly string[], env: CommandEnvironment): Promise<number> {
  let args: BenchArgs | typeof HELP;
  try {
    args = parseBenchArgs(argv);
  } catch (error) {
    env.stderr.write(`${errorText(error)}\n`);
    return 2;
  }
  if (args === HELP) {
    env.stdout.write(`${BENCH_USAGE}\n`);
    return 0;
  }
  try {
    await benchmark(args, env);
    return 0;
  } catch (error) {
    env.stderr.write(`\nbench failed: ${errorText(error)}\n`);
    return 1;
  }
}

async function benchmark(args: BenchArgs, env: CommandEnvironment): Promise<void> {
  const progress = createProgressLine(env.stderr);
  const dataset = await loadDataset(args.dataset, args.data, args.limit);
  progress.done(`${args.dataset}: ${dataset.conversations.length} conversations, ${dataset.questions.scored} of ${dataset.questions.total} questions scored`);
  progress.update(`loading ${args.encoders} encoders…`);
  const loadStart = performance.now();
  const loaded = await env.loadTextEncoder(args);
  try {
    // Load the model now, so build time measures embedding and not the first-call model load.
    await loaded.encoder.embed(['warm up']);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    progress.done(`encoders ready in ${loadSeconds.toFixed(1)} s`);
    const store = args.vectorCacheDir === undefined ? undefined : await openVectorCache(args.vectorCacheDir, loaded.encoder.id, loaded.encoder.dimension);
    if (store) progress.done(`vector cache ${store.file}: ${store.loaded} text vectors on disk`);
    const textEncoder = memoizeTextEncoder(loaded.encoder, store);
    const llm = args.llm ? createLlms(args.llm) : undefined;
    const systems = args.stages ? STAGE_SYSTEMS : BENCH_SYSTEMS;
    const run = await runBenchmark({
      dataset,
      createMemory: (options) => env.createMemory(options),
      textEncoder,
      imageEncoder: env.captionProxy(textEncoder),
      ...(loaded.wordVectors ? { wordVectors: loaded.wordVectors } : {}),
      progress,
      curveBudgets: args.curves,
      systems: args.floatVectors ? withFloatVectorsSystem(systems) : systems,
      ...(llm ? { llm } : {}),
    }).finally(() => store?.flush());
    const report = buildReport(run, {
      dataset: args.dataset,
      questions: dataset.questions,
      encoderKind: args.encoders,
      encoderLoadSeconds: loadSeconds,
      ...(loaded.wordVectors ? { wordVectorsId: loaded.wordVectors.id } : {}),
      ...(store ? { vectorCache: { file: store.file, servedTexts: textEncoder.diskHits } } : {}),
      ...(args.llm ? { llmModel: args.llm.model, judgeModel: args.llm.judgeModel } : {}),
    });
    env.stdout.write(formatReport(report));
    if (args.json !== undefined) {
      await writeFile(args.json, `${JSON.stringify(report, null, 2)}\n`);
      progress.done(`wrote ${args.json}`);
    }
    if (args.details !== undefined) {
      await writeFile(args.details, questionDetailLines(dataset, run));
      progress.done(`wrote ${args.details}`);
    }
  } finally {
    await loaded.dispose();
  }
}

function createLlms(settings: LlmArgs): BenchLlm {
  const make = (model: string) =>
    createOpenAiProvider({
      baseUrl: settings.baseUrl,
      model,
      ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
      ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    });
  const answerer = make(settings.model);
  return { answerer, judge: settings.judgeModel === settings.model ? answerer : make(settings.judgeModel) };
}

function errorText(error: unknown): string {
  if (isVmemError(error)) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
