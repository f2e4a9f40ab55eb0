import { encodeWordVectors, parseWordVectors } from '../encoders/word-vectors.js';
import type { WordVectors } from '../types.js';

/**
 * A tiny word-vector table the tests build themselves: three topics and a name on axes of their own, so related words
 * have cosine ≈ 0.9 and unrelated ones ≈ 0.
 */
export const TOPIC_WORDS: Readonly<Record<string, readonly number[]>> = {
  martial: [1, 0.1, 0, 0, 0],
  karate: [0.95, 0.2, 0, 0, 0],
  kickboxing: [0.9, 0.3, 0.05, 0, 0],
  city: [0, 0, 1, 0.1, 0],
  cities: [0, 0, 0.95, 0.15, 0],
  rome: [0.05, 0, 0.9, 0.3, 0],
  paris: [0, 0.05, 0.92, 0.25, 0],
  banana: [0, 0, 0.05, 1, 0],
  soup: [0.05, 0, 0, 0.95, 0],
  john: [0, 0, 0, 0, 1],
};

/** `TOPIC_WORDS` as a parsed word-vector table. */
export function topicWordVectors(): WordVectors {
  const words = Object.keys(TOPIC_WORDS);
  return parseWordVectors(encodeWordVectors('test-topics', words, words.map((word) => TOPIC_WORDS[word]!)));
}
