import { parseArgs } from 'node:util';
import { VmemError } from 'vmem';
import type { DatasetName } from './dataset.js';
import { DEFAULT_VECTOR_CACHE_DIR } from './vector-cache.js';

/** Which encoders build the memories. */
export type EncoderKind = 'embedded' | 'hub';

/** The LLM settings of an `--llm` run. */
export interface LlmArgs {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  /** Model that grades the answers. @default the answering model */
  readonly judgeModel: string;
  readonly timeoutMs?: number;
}

/** A parsed benchmark command line. */
export interface BenchArgs {
  readonly dataset: DatasetName;
  readonly data: string;
  readonly json?: string;
  /** Per-question outcomes (JSON lines) for diagnosis. */
  readonly details?: string;
  readonly limit?: number;
  readonly encoders: EncoderKind;
  /** Where hub models are fetched from (a self-hosted mirror); the Hugging Face hub when absent. */
  readonly hubUrl?: string;
  /** USE-Lite threads for `embedded` (more than 1 starts a worker pool). @default 1 */
  readonly textWorkers: number;
  /** Budgets (mean returned rounds) for the recall-vs-budget curves; empty without `--curves`. */
  readonly curves: readonly number[];
  /** Run the stage ablations of `full` instead of the baselines (curves only). */
  readonly stages: boolean;
  /** Also run `full` over memories of float32 vectors, as `full-float32`. */
  readonly floatVectors: boolean;
  /** Folder of the on-disk text-vector cache; absent when `--cache-vectors` is not given. */
  readonly vectorCacheDir?: string;
  readonly llm?: LlmArgs;
}

/** The budgets of `--curves` (mean returned rounds), as issue 10 asks for. */
export const DEFAULT_CURVE_BUDGETS: readonly number[] = [8, 12, 16, 24, 32];

/** The command's help text. */
export const BENCH_USAGE = `Usage: npm run bench -- --dataset memgallery|locomo --data PATH [options]

Measures how well retrieval finds the evidence of each question, for eight systems and their
matched-budget baselines, in one run. Tables go to stdout, progress to stderr.

  --dataset NAME        memgallery or locomo
  --data PATH           a folder of data files or one file of that data set's format
  --json FILE           also write the report as JSON to FILE
  --details FILE        also write one JSON line per question: gold rounds and, per system,
                        the retrieval case and the rank of each gold round (for diagnosis)
  --limit N             only the first N conversations (Mem-Gallery: dialogue files in
                        file-name order; LoCoMo: conversations in file order)
  --encoders KIND       embedded (USE-Lite, offline; default) or hub (all-MiniLM-L6-v2 via
                        transformers.js; needs the Hugging Face hub or --hub-url)
  --hub-url URL         where hub models are fetched from (self-hosted mirror)
  --text-workers N      USE-Lite threads for embedded encoders (default 1; 2 uses both
                        cores of a 2-core machine for the build)
  --curves              also measure recall against budget: for every system, the k whose
                        mean returned rounds is nearest each budget
  --curve-budgets LIST  the budgets of --curves (default 8,12,16,24,32)
  --stages              instead of the baselines, run full with one stage turned off at a time
                        (and the other context rules), as curves: what each stage adds
  --float-vectors       also build each conversation into a memory that keeps float32 vectors
                        and scores them exactly, and run full there as full-float32: what the
                        int8 vectors cost
  --cache-vectors       keep text vectors on disk (keyed by encoder id and text) and reuse
                        them, so a rebuild takes seconds; the build time is then no
                        encoding time, and the report says so
  --cache-dir DIR       where --cache-vectors keeps them (default ${DEFAULT_VECTOR_CACHE_DIR})
  --llm                 also answer every question with an LLM and grade the answers
  --llm-base-url URL    OpenAI-compatible API root, e.g. https://api.openai.com/v1
  --llm-model NAME      model that answers (and makes anchors)
  --llm-key KEY         API key (omit for local servers)
  --judge-model NAME    model that grades (default: --llm-model)
  --llm-timeout-ms MS   per-call timeout (default 60000)
  -h, --help            this text

Images have no bytes in either data set: image vectors are their captions embedded by the text
encoder (mode caption-proxy).`;

/** `parseBenchArgs` saw `--help`. */
export const HELP = 'help';

function usageError(problem: string): VmemError {
  return new VmemError('INVALID_INPUT', `${problem}\n\n${BENCH_USAGE}`);
}

/**
 * Parses the command line (without `node` and the script). Unknown flags, missing or bad values
 * reject with `INVALID_INPUT` carrying the usage text.
 * @example parseBenchArgs(['--dataset', 'locomo', '--data', '../shared/bench/locomo', '--limit', '2'])
 */
export function parseBenchArgs(argv: readonly string[]): BenchArgs | typeof HELP {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        dataset: { type: 'string' },
        data: { type: 'string' },
        json: { type: 'string' },
        details: { type: 'string' },
        limit: { type: 'string' },
        encoders: { type: 'string' },
        'hub-url': { type: 'string' },
        'text-workers': { type: 'string' },
        'cache-vectors': { type: 'boolean' },
        curves: { type: 'boolean' },
        stages: { type: 'boolean' },
        'float-vectors': { type: 'boolean' },
        'curve-budgets': { type: 'string' },
        'cache-dir': { type: 'string' },
        llm: { type: 'boolean' },
        'llm-base-url': { type: 'string' },
        'llm-model': { type: 'string' },
        'llm-key': { type: 'string' },
        'judge-model': { type: 'string' },
        'llm-timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (cause) {
    // Node adds advice about positionals after the first sentence; the usage text is more useful.
    const message = cause instanceof Error ? cause.message : String(cause);
    throw usageError(message.split(/(?<=\.) /)[0] ?? message);
  }
  if (values['help'] === true) return HELP;
  if (positionals.length > 0) throw usageError(`Unexpected argument ${JSON.stringify(positionals[0])}; every option needs its --flag.`);
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const dataset = text('dataset');
  if (dataset !== 'memgallery' && dataset !== 'locomo') throw usageError(dataset === undefined ? 'Missing --dataset.' : `Unknown dataset "${dataset}".`);
  const data = text('data');
  if (data === undefined || data === '') throw usageError('Missing --data PATH.');
  const encoders = text('encoders') ?? 'embedded';
  if (encoders !== 'embedded' && encoders !== 'hub') throw usageError(`Unknown --encoders "${encoders}".`);
  const limitText = text('limit');
  const limit = limitText === undefined ? undefined : positiveInteger(limitText, '--limit');
  const hubUrl = text('hub-url');
  if (hubUrl !== undefined && encoders !== 'hub') throw usageError('--hub-url only applies with --encoders hub.');
  const workersText = text('text-workers');
  if (workersText !== undefined && encoders !== 'embedded') throw usageError('--text-workers only applies with --encoders embedded.');
  const textWorkers = workersText === undefined ? 1 : positiveInteger(workersText, '--text-workers');
  const cacheDir = text('cache-dir');
  if (cacheDir !== undefined && values['cache-vectors'] !== true) throw usageError('--cache-dir needs --cache-vectors.');
  const vectorCacheDir = values['cache-vectors'] === true ? (cacheDir ?? DEFAULT_VECTOR_CACHE_DIR) : undefined;
  const budgetsText = text('curve-budgets');
  if (budgetsText !== undefined && values['curves'] !== true && values['stages'] !== true) throw usageError('--curve-budgets needs --curves or --stages.');
  if (values['stages'] === true && values['llm'] === true) throw usageError('--stages measures retrieval alone; leave out --llm.');
  const stages = values['stages'] === true;
  const curves = values['curves'] === true || stages ? (budgetsText ?? DEFAULT_CURVE_BUDGETS.join(',')).split(',').map((part) => positiveInteger(part.trim(), '--curve-budgets')) : [];
  const json = text('json');
  const details = text('details');
  const llm = parseLlmArgs(values);
  return {
    dataset,
    data,
    encoders,
    textWorkers,
    curves,
    stages,
    floatVectors: values['float-vectors'] === true,
    ...(json !== undefined ? { json } : {}),
    ...(details !== undefined ? { details } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(hubUrl !== undefined ? { hubUrl } : {}),
    ...(vectorCacheDir !== undefined ? { vectorCacheDir } : {}),
    ...(llm ? { llm } : {}),
  };
}

function parseLlmArgs(values: Record<string, string | boolean | undefined>): LlmArgs | undefined {
  const flags = ['llm-base-url', 'llm-model', 'llm-key', 'judge-model', 'llm-timeout-ms'];
  if (values['llm'] !== true) {
    const stray = flags.find((flag) => values[flag] !== undefined);
    if (stray) throw usageError(`--${stray} needs --llm.`);
    return undefined;
  }
  const baseUrl = values['llm-base-url'] as string | undefined;
  const model = values['llm-model'] as string | undefined;
  if (baseUrl === undefined || model === undefined) throw usageError('--llm needs --llm-base-url and --llm-model.');
  const apiKey = values['llm-key'] as string | undefined;
  const timeout = values['llm-timeout-ms'] as string | undefined;
  return {
    baseUrl,
    model,
    judgeModel: (values['judge-model'] as string | undefined) ?? model,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(timeout !== undefined ? { timeoutMs: positiveInteger(timeout, '--llm-timeout-ms') } : {}),
  };
}

function positiveInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw usageError(`${flag} must be a whole number of at least 1, got "${text}".`);
  return value;
}
