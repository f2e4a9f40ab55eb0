/**
 * `vmem/internal`: hooks for vmem's own benchmark. **Unstable**: anything here may change or go away
 * in any release, without notice; applications should use `vmem`, `vmem/browser` and `vmem/node`.
 *
 * `withAblation` attaches benchmark switches (routing off, unit granularity, another context rule…)
 * to retrieval options, so the benchmark can measure what each stage of retrieval adds; the
 * confidence model's features and weights are here for `bench/fit-confidence.ts`, which fits them.
 */
export { withAblation, normalizeRetrievalOptions, CONFIDENCE_FEATURES } from './options.js';
export { QUESTION_FEATURES, questionConfidence, type ConfidenceModel, type QuestionFeatures } from './core/confidence.js';
export { CONFIDENCE_MODEL } from './core/confidence-model.js';
export type { RetrievalAblation, ContextRule, NormalizedRetrievalOptions } from './options.js';
