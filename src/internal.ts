/**
 * `vmem/internal`: hooks for vmem's own benchmark. **Unstable**: anything here may change or go away
 * in any release, without notice; applications should use `vmem`, `vmem/browser` and `vmem/node`.
 *
 * `withAblation` attaches benchmark switches (routing off, unit granularity, another context rule…)
 * to retrieval options, so the benchmark can measure what each stage of retrieval adds.
 */
export { withAblation, normalizeRetrievalOptions } from './options.js';
export type { RetrievalAblation, ContextRule, NormalizedRetrievalOptions } from './options.js';
