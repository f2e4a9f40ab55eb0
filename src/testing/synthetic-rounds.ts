/**
 * Synthetic data for the browser benchmark's index-scale measures: rounds of Zipf-distributed
 * pseudo-words, and
 * encoders that return deterministic pseudo-random unit vectors (no model runs). Retrieval cost
 * depends on the number and size of vectors and texts, not on their meaning, so this measures the
 * index honestly; quality is measured elsewhere (the benchmark command) with the real encoders.
 */
import type { ImageEmbedder, TextEmbedder } from '../encoders/types.js';
import type { RoundInput } from '../types.js';

/** A small seeded generator (mulberry32): the same seed gives the same data in every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashText(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/** A unit vector of `dimension` random components, seeded. */
export function randomUnitVector(dimension: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const vector = new Float32Array(dimension);
  let norm = 0;
  for (let i = 0; i < dimension; i++) {
    const value = random() * 2 - 1;
    vector[i] = value;
    norm += value * value;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dimension; i++) vector[i]! /= norm;
  return vector;
}

/** A text encoder returning a random unit vector per distinct text (same text, same vector). */
export function syntheticTextEncoder(dimension = 512): TextEmbedder {
  return { id: `synthetic-text-${dimension}`, dimension, embed: async (texts) => texts.map((text) => randomUnitVector(dimension, hashText(text))) };
}

/** An image encoder returning a random unit vector per image caption or byte length. */
export function syntheticImageEncoder(dimension = 1280): ImageEmbedder {
  return {
    id: `synthetic-image-${dimension}`,
    dimension,
    captionOnly: true,
    embed: async (images) => images.map((image) => randomUnitVector(dimension, hashText(image.caption ?? String(image.bytes?.length ?? 0)))),
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tor', 'sa', 'vel', 'dun', 'pi', 'gar', 'ne', 'bro', 'sil', 'ta', 'mur', 'el'];
const VOCABULARY_SIZE = 20_000;

/** 20,000 pseudo-words, and Zipf (s = 1.07) cumulative weights: word frequencies like natural text. */
const vocabulary = (() => {
  const words = Array.from({ length: VOCABULARY_SIZE }, (_, rank) => {
    let word = '';
    for (let n = rank + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
    return word;
  });
  const cumulative = new Float64Array(VOCABULARY_SIZE);
  let total = 0;
  for (let rank = 0; rank < VOCABULARY_SIZE; rank++) cumulative[rank] = total += 1 / Math.pow(rank + 1, 1.07);
  return { words, cumulative, total };
})();

/** One word drawn by its Zipf frequency. */
function zipfWord(random: () => number): string {
  const target = random() * vocabulary.total;
  let low = 0;
  let high = VOCABULARY_SIZE - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (vocabulary.cumulative[middle]! < target) low = middle + 1;
    else high = middle;
  }
  return vocabulary.words[low]!;
}

/** A sentence of `length` words with natural-text frequencies (a few common words, a long tail). */
export function randomSentence(random: () => number, length: number): string {
  return Array.from({ length }, () => zipfWord(random)).join(' ');
}

/**
 * `count` synthetic rounds (user 12–30 words, assistant 12–30 words), one in ten with a caption-only image.
 * @param start index of the first round, so batches continue a history.
 */
export function syntheticRounds(count: number, start = 0, seed = 7): RoundInput[] {
  const random = seededRandom(seed + start);
  return Array.from({ length: count }, (_, offset) => {
    const index = start + offset;
    const words = () => 12 + Math.floor(random() * 19);
    return {
      id: `r${index}`,
      timestamp: 1_700_000_000_000 + index * 60_000,
      user: {
        text: randomSentence(random, words()),
        ...(index % 10 === 0 ? { images: [{ id: `img${index}`, caption: randomSentence(random, 8) }] } : {}),
      },
      assistant: { text: randomSentence(random, words()) },
    };
  });
}
