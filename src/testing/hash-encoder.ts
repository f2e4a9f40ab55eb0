import type { TextEmbedder } from '../encoders/types.js';

/**
 * A deterministic bag-of-words text encoder for tests: each word (lower-cased, crude plural strip)
 * hashes to a dimension. Counts its calls and inputs so tests can prove what was (not) re-encoded.
 */
export function createHashTextEncoder(options: { id?: string; dimension?: number } = {}): TextEmbedder & { calls: number; encoded: string[] } {
  const dimension = options.dimension ?? 64;
  const encoder = {
    id: options.id ?? `hash-bow-${dimension}`,
    dimension,
    calls: 0,
    encoded: [] as string[],
    async embed(texts: readonly string[]) {
      encoder.calls++;
      encoder.encoded.push(...texts);
      return texts.map((text) => {
        const vector = new Float32Array(dimension);
        for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
          const stem = word.length > 3 ? word.replace(/s$/, '') : word;
          let hash = 2166136261;
          for (let i = 0; i < stem.length; i++) hash = Math.imul(hash ^ stem.charCodeAt(i), 16777619);
          vector[(hash >>> 0) % dimension]! += 1;
        }
        let norm = Math.hypot(...vector);
        if (norm === 0) {
          vector[0] = 1;
          norm = 1;
        }
        return vector.map((value) => value / norm);
      });
    },
  };
  return encoder;
}
