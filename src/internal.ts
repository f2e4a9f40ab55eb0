/**
 * `vmem/internal`: hooks for vmem's own benchmark, demo and tests. **Unstable**: anything here may
 * change or go away in any release, without notice; applications should use the other entries.
 *
 * - `withAblation` attaches benchmark switches (routing off, unit granularity, another context rule…)
 *   to retrieval options, so the benchmark can measure what each stage of retrieval adds.
 * - `withFloatVectors` marks memory options for float32 vectors scored exactly, so the benchmark can
 *   measure what the int8 vectors cost retrieval.
 * - The confidence model's features and weights are here for `bench/fit-confidence.ts`, which fits them.
 * - `route` is the query router on its own; `retrieve` reports the case it chose.
 * - The describer's text helpers show how a machine-derived description becomes indexed text.
 * - `encodeWordVectors` writes the word-vector file `parseWordVectors` reads (build tooling).
 */
export { withAblation, withFloatVectors, normalizeRetrievalOptions, DEFAULT_MAX_TEXT_CHARS, CONFIDENCE_FEATURES } from './options.js';
export { QUESTION_FEATURES, questionConfidence, type ConfidenceModel, type QuestionFeatures } from './core/confidence.js';
export { CONFIDENCE_MODEL } from './core/confidence-model.js';
export type { RetrievalAblation, ContextRule, NormalizedRetrievalOptions } from './options.js';
export { route } from './core/route.js';
export { derivedText, labelledDescription, descriptionParts, descriptionKeywords } from './describe/index.js';
export type { DescriptionField, DescriptionPart } from './describe/index.js';
export { encodeWordVectors } from './encoders/word-vectors.js';
export { MODEL_FILES } from './encoders/model-formats.js';
export { USE_LITE_DIMENSION } from './encoders/use-lite.js';
export { MOBILENET_DIMENSION } from './encoders/mobilenet.js';
