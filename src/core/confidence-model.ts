import type { ConfidenceModel } from './confidence.js';

/*
 * Written by `npx tsx bench/fit-confidence.ts --write` from the dev sets (memgallery and locomo dev, no LLM);
 * docs/retrieval.md says how it was fitted and judged. Do not edit by hand.
 */
export const CONFIDENCE_MODEL: ConfidenceModel = {
  bias: -0.1395,
  weights: { bm25Top: 0.3086, bm25Share: 0.4978, bm25Anywhere: -0.1244, unseen: -0.6536, unseenWords: 0.3914, similarTop: 0.619, denseTop: 0.2056, denseLead: 0.05485, imageTop: 2.102, imageLead: 0.3823, agreement: 0.2244, stated: 0.6258, askedOnly: 0.1193, contentWords: 0.2507, withImage: -1.53 },
  mean: { bm25Top: 1.448, bm25Share: 0.1849, bm25Anywhere: 0.1743, unseen: 0.3637, unseenWords: 0.8011, similarTop: 0.697, denseTop: 0.5347, denseLead: 0.1049, imageTop: 0.1389, imageLead: 0.02365, agreement: 0.5959, stated: 0.4336, askedOnly: 0.01601, contentWords: 1.9, withImage: 0.1772 },
  scale: { bm25Top: 0.4658, bm25Share: 0.1475, bm25Anywhere: 0.1132, unseen: 0.2936, unseenWords: 0.6346, similarTop: 0.1996, denseTop: 0.1641, denseLead: 0.05873, imageTop: 0.3052, imageLead: 0.06106, agreement: 0.2635, stated: 0.2463, askedOnly: 0.06069, contentWords: 0.3311, withImage: 0.3819 },
  falloff: 0.3,
};
