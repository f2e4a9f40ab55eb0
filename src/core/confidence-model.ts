import type { ConfidenceModel } from './confidence.js';

/*
 * Written by `npx tsx bench/fit-confidence.ts --write` from the dev sets (memgallery and locomo dev, no LLM);
 * docs/retrieval.md says how it was fitted and judged. Do not edit by hand.
 */
export const CONFIDENCE_MODEL: ConfidenceModel = {
  bias: -0.1511,
  weights: { bm25Top: 0.3384, bm25Share: 0.2394, bm25Anywhere: 0.06891, unseen: -0.8131, unseenWords: 0.6215, similarTop: 0.3542, denseTop: 0.2951, denseLead: 0.05269, imageLead: 0.6605, agreement: 0.2266, stated: 0.7385, askedOnly: 0.1156, contentWords: 0.1167, pictureUnseen: -1.011, pictureMatch: 1.103, withImage: 0.26 },
  mean: { bm25Top: 1.448, bm25Share: 0.1941, bm25Anywhere: 0.1753, unseen: 0.372, unseenWords: 0.7991, similarTop: 0.6951, denseTop: 0.5344, denseLead: 0.1051, imageLead: 0.02364, agreement: 0.5993, stated: 0.4265, askedOnly: 0.01627, contentWords: 1.861, pictureUnseen: 0.2826, pictureMatch: 0.1332, withImage: 0.1772 },
  scale: { bm25Top: 0.4654, bm25Share: 0.1693, bm25Anywhere: 0.117, unseen: 0.3008, unseenWords: 0.6345, similarTop: 0.157, denseTop: 0.164, denseLead: 0.05873, imageLead: 0.06097, agreement: 0.2631, stated: 0.2615, askedOnly: 0.06167, contentWords: 0.3441, pictureUnseen: 0.1888, pictureMatch: 0.07217, withImage: 0.3819 },
  falloff: 0,
};
