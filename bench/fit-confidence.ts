/**
 * Fits the confidence model (src/core/confidence-model.ts) on the dev sets and judges it
 * leave-one-dialogue-out. No LLM anywhere.
 *
 *   npx tsx bench/fit-confidence.ts --memgallery ../shared/bench/memgallery --locomo ../shared/bench/locomo [--cache-dir DIR] [--write]
 *
 * Every question is asked under the core's defaults with `minConfidence: 0` and the model's features
 * attached (`explainConfidence`). Labels: a memory's own scored questions are answerable (1); other
 * dialogues' questions (names swapped, `abstention.ts`) and Mem-Gallery's "Not mentioned" ones are
 * not (0). A logistic regression on the standardised features gives the question's confidence; the
 * default `minConfidence` is the highest threshold that keeps at least 99 % of the answerable
 * questions of both sets relevant, leave-one-dialogue-out; the hit falloff is the steepest whose
 * leaving out of weak hits costs answerable allClue at most 0.005 more at that default. `--write` writes the model fitted
 * on all dialogues into src/core/confidence-model.ts; the default threshold goes in src/options.ts by hand.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createCaptionProxyImageEncoder, createMemory, type Memory, type RetrievalResult } from 'vmem';
import { CONFIDENCE_FEATURES, QUESTION_FEATURES, questionConfidence, withAblation, type ConfidenceModel, type QuestionFeatures } from 'vmem/internal';
import { auroc, unanswerableQuestions } from './abstention.js';
import type { BenchConversation, BenchQuestion, DatasetName } from './dataset.js';
import { loadBenchTextEncoder } from './encoders.js';
import { loadDataset } from './load.js';
import { memoizeTextEncoder } from './memo-encoder.js';
import { DEFAULT_VECTOR_CACHE_DIR, openVectorCache } from './vector-cache.js';

interface Sample {
  readonly dataset: DatasetName;
  /** The memory asked. */
  readonly memory: string;
  /** The conversation the question was written for. */
  readonly from: string;
  readonly kind: 'answerable' | 'foreign' | 'near-topic';
  /** The question's id (`BenchQuestion.id`, or the unanswerable question's), to look a sample up by. */
  readonly question: string;
  readonly features: QuestionFeatures;
  /** Answerable only: per gold round, the closeness of the hit that brought it back (1 for the best hit), or null when it was not returned. */
  readonly gold?: readonly (number | null)[];
}

const { values } = parseArgs({
  options: { memgallery: { type: 'string' }, locomo: { type: 'string' }, 'cache-dir': { type: 'string' }, write: { type: 'boolean' }, 'save-samples': { type: 'string' }, 'load-samples': { type: 'string' } },
});
const EXPLAIN = withAblation({ llmAnchors: false, minConfidence: 0 }, { explainConfidence: true });
// --save-samples FILE keeps the questions' features, so --load-samples FILE refits without retrieving again.
// JSON writes NaN (a feature a question's case has no signal for) as null: a feature's null is read back as NaN.
const isFeature = (key: string) => (QUESTION_FEATURES as readonly string[]).includes(key);
const samples: Sample[] = values['load-samples']
  ? (JSON.parse(await readFile(values['load-samples'], 'utf8'), (key, value: unknown) => (value === null && isFeature(key) ? Number.NaN : value)) as Sample[])
  : await collectSamples();
if (values['save-samples']) await writeFile(values['save-samples'], JSON.stringify(samples));

async function collectSamples(): Promise<Sample[]> {
  const loaded = await loadBenchTextEncoder({ encoders: 'embedded', textWorkers: 1 } as never);
  const store = await openVectorCache(values['cache-dir'] ?? DEFAULT_VECTOR_CACHE_DIR, loaded.encoder.id, loaded.encoder.dimension);
  const textEncoder = memoizeTextEncoder(loaded.encoder, store);
  textEncoder.useCache = true;
  const samples: Sample[] = [];
  for (const [dataset, path] of [['memgallery', values.memgallery], ['locomo', values.locomo]] as const) {
    if (!path) continue;
    const set = await loadDataset(dataset, path);
    const unanswerable = unanswerableQuestions(set.conversations);
    for (const conversation of set.conversations) {
      const memory = await createMemory({ textEncoder, imageEncoder: createCaptionProxyImageEncoder(textEncoder), ...(loaded.wordVectors ? { wordVectors: loaded.wordVectors } : {}) });
      await memory.add(conversation.rounds);
      for (const question of conversation.questions) samples.push(await answerable(dataset, conversation, memory, question));
      for (const question of unanswerable.get(conversation.id) ?? []) {
        const result = await memory.retrieve(question.query, EXPLAIN);
        samples.push({ dataset, memory: conversation.id, from: question.from, kind: question.kind, question: question.id, features: featuresOf(result) });
      }
      await memory.close();
      process.stderr.write(`${dataset} ${conversation.id}: ${samples.length} questions so far\n`);
    }
  }
  await store.flush();
  await loaded.dispose();
  return samples;
}

async function answerable(dataset: DatasetName, conversation: BenchConversation, memory: Memory, question: BenchQuestion): Promise<Sample> {
  const result = await memory.retrieve(question.query, EXPLAIN);
  const closeness = (result as unknown as Record<symbol, { closeness: Record<string, number> }>)[CONFIDENCE_FEATURES]!.closeness;
  const entryOf = new Map(result.trace.map((entry) => [entry.roundId, entry]));
  const gold = question.goldRounds.map((roundId) => {
    const entry = entryOf.get(roundId);
    if (!entry) return null;
    if (!entry.neighbour) return closeness[roundId] ?? 0;
    // Context stays while one of the hits it came for stays.
    return Math.max(0, ...(entry.neighbourOf ?? []).map((hit) => closeness[hit] ?? 0));
  });
  return { dataset, memory: conversation.id, from: conversation.id, kind: 'answerable', question: question.id, features: featuresOf(result), gold };
}

function featuresOf(result: RetrievalResult): QuestionFeatures {
  return (result as unknown as Record<symbol, { features: QuestionFeatures }>)[CONFIDENCE_FEATURES]!.features;
}

/** Logistic regression by Newton's method on standardised features, with a little L2 so it always converges. */
function fit(train: readonly Sample[]): Omit<ConfidenceModel, 'falloff'> {
  const mean = {} as Record<keyof QuestionFeatures, number>;
  const scale = {} as Record<keyof QuestionFeatures, number>;
  for (const name of QUESTION_FEATURES) {
    // A feature a question's case has no signal for (NaN) is left out here and read as the mean below, as `questionConfidence` reads it.
    const column = train.map((sample) => sample.features[name]).filter((value) => !Number.isNaN(value));
    const m = column.reduce((a, b) => a + b, 0) / Math.max(1, column.length);
    const sd = Math.sqrt(column.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, column.length));
    mean[name] = m;
    scale[name] = sd > 1e-9 ? sd : 1;
  }
  // Each kind of unanswerable question weighs as much as the answerable ones of its set.
  const count = (predicate: (sample: Sample) => boolean) => train.filter(predicate).length || 1;
  const weightOf = (sample: Sample) =>
    sample.kind === 'answerable' ? 1 : count((s) => s.kind === 'answerable' && s.dataset === sample.dataset) / count((s) => s.kind === sample.kind && s.dataset === sample.dataset) / (sample.dataset === 'memgallery' ? 2 : 1);
  const rows = train.map((sample) => [1, ...QUESTION_FEATURES.map((name) => (Number.isNaN(sample.features[name]) ? 0 : (sample.features[name] - mean[name]) / scale[name]))]);
  const labels = train.map((sample) => (sample.kind === 'answerable' ? 1 : 0));
  const weights = train.map(weightOf);
  const d = QUESTION_FEATURES.length + 1;
  let beta = new Array<number>(d).fill(0);
  for (let iteration = 0; iteration < 30; iteration++) {
    const gradient = new Array<number>(d).fill(0);
    const hessian = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j && i > 0 ? 1 : 0)));
    rows.forEach((row, n) => {
      const p = 1 / (1 + Math.exp(-row.reduce((sum, x, i) => sum + x * beta[i]!, 0)));
      const w = weights[n]!;
      for (let i = 0; i < d; i++) {
        gradient[i]! += w * (labels[n]! - p) * row[i]!;
        for (let j = 0; j < d; j++) hessian[i]![j]! += w * p * (1 - p) * row[i]! * row[j]!;
      }
    });
    for (let i = 1; i < d; i++) gradient[i]! -= beta[i]!;
    const step = solve(hessian, gradient);
    beta = beta.map((b, i) => b + step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return { bias: beta[0]!, weights: Object.fromEntries(QUESTION_FEATURES.map((name, i) => [name, beta[i + 1]!])) as ConfidenceModel['weights'], mean, scale };
}

function solve(matrix: number[][], vector: number[]): number[] {
  const n = vector.length;
  const a = matrix.map((row, i) => [...row, vector[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(a[row]![col]!) > Math.abs(a[pivot]![col]!)) pivot = row;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const factor = a[row]![col]! / a[col]![col]!;
      for (let k = col; k <= n; k++) a[row]![k]! -= factor * a[col]![k]!;
    }
  }
  return a.map((row, i) => row[n]! / row[i]!);
}

// Leave one dialogue out: a question is scored by a model fitted without the memory it was asked of
// and without the dialogue it was written for.
const heldOut = new Map<Sample, number>();
for (const dialogue of new Set(samples.map((sample) => `${sample.dataset}/${sample.memory}`))) {
  const touches = (sample: Sample) => `${sample.dataset}/${sample.memory}` === dialogue || `${sample.dataset}/${sample.from}` === dialogue;
  const model = { ...fit(samples.filter((sample) => !touches(sample))), falloff: 0 };
  for (const sample of samples) if (`${sample.dataset}/${sample.memory}` === dialogue) heldOut.set(sample, questionConfidence(sample.features, model));
}

const scores = (dataset: DatasetName, kind: Sample['kind'], withImage?: boolean) =>
  samples.filter((s) => s.dataset === dataset && s.kind === kind && (withImage === undefined || (s.features.withImage === 1) === withImage)).map((s) => heldOut.get(s)!);
const answerableScores = samples.filter((s) => s.kind === 'answerable').map((s) => heldOut.get(s)!).sort((a, b) => a - b);
// The default favours the user: at most 1 % of the answerable questions of both sets fall under it.
const threshold = Math.floor((answerableScores[Math.floor(answerableScores.length * 0.01)] ?? 0) * 100) / 100;

/** Answerable allClue with hits under the threshold dropped (falloff applied), over one set. */
function allClueAt(dataset: DatasetName, threshold: number, falloff: number): number {
  const answerable = samples.filter((s) => s.dataset === dataset && s.kind === 'answerable');
  const kept = answerable.filter((s) => {
    const confidence = heldOut.get(s)!;
    return s.gold!.every((closeness) => closeness !== null && (closeness === 1 ? confidence : confidence * closeness ** falloff) >= threshold);
  });
  return kept.length / answerable.length;
}
const falloffs = [0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1];
const datasets = [...new Set(samples.map((sample) => sample.dataset))];
// Leaving out weak hits may cost at most another 0.005 of allClue on each set beyond what leaving out
// whole questions under the threshold costs, and at most 0.01 in all.
const falloff =
  falloffs.filter((f) => datasets.every((dataset) => allClueAt(dataset, threshold, 0) - allClueAt(dataset, threshold, f) <= 0.005 && allClueAt(dataset, 0, 0) - allClueAt(dataset, threshold, f) <= 0.01)).at(-1) ?? 0;

const share = (values: readonly number[], below: number) => values.filter((v) => v < below).length / Math.max(1, values.length);
console.log(`Leave-one-dialogue-out, default minConfidence ${threshold}, hit falloff ${falloff}\n`);
console.log('| set | AUROC vs foreign | AUROC vs near-topic (AR) | foreign not relevant | AR not relevant | answerable not relevant | allClue, no threshold → default |');
console.log('|---|---|---|---|---|---|---|');
for (const dataset of datasets) {
  const yes = scores(dataset, 'answerable');
  const foreign = scores(dataset, 'foreign');
  const near = scores(dataset, 'near-topic');
  const cell = (value: number) => (Number.isNaN(value) ? '–' : value.toFixed(3));
  console.log(
    `| ${dataset} | ${cell(auroc(yes, foreign))} | ${cell(auroc(yes, near))} | ${(100 * share(foreign, threshold)).toFixed(1)} % | ${near.length ? `${(100 * share(near, threshold)).toFixed(1)} %` : '–'} | ${(100 * share(yes, threshold)).toFixed(1)} % | ${allClueAt(dataset, 0, 0).toFixed(3)} → ${allClueAt(dataset, threshold, falloff).toFixed(3)} |`,
  );
}
// Questions with a picture are where the foreign ones hide (in caption-proxy mode the picture is its caption).
for (const dataset of datasets) {
  const apart = [false, true].map((withImage) => auroc(scores(dataset, 'answerable', withImage), scores(dataset, 'foreign', withImage)));
  if (!apart.some(Number.isNaN)) console.log(`\n${dataset}, AUROC vs foreign among questions without a picture ${apart[0]!.toFixed(3)}, with one ${apart[1]!.toFixed(3)}`);
}

const final: ConfidenceModel = { ...fit(samples), falloff };
const fixed = (record: Readonly<Record<string, number>>) => `{ ${Object.entries(record).map(([key, value]) => `${key}: ${Number(value.toPrecision(4))}`).join(', ')} }`;
const source = `import type { ConfidenceModel } from './confidence.js';

/*
 * Written by \`npx tsx bench/fit-confidence.ts --write\` from the dev sets (${datasets.join(' and ')} dev, no LLM);
 * docs/retrieval.md says how it was fitted and judged. Do not edit by hand.
 */
export const CONFIDENCE_MODEL: ConfidenceModel = {
  bias: ${Number(final.bias.toPrecision(4))},
  weights: ${fixed(final.weights)},
  mean: ${fixed(final.mean)},
  scale: ${fixed(final.scale)},
  falloff: ${falloff},
};
`;
if (values.write) {
  await writeFile(new URL('../src/core/confidence-model.ts', import.meta.url), source);
  console.log('\nwrote src/core/confidence-model.ts');
} else console.log(`\n${source}`);
