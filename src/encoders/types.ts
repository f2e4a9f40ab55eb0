/** Turns text into unit-length vectors. One instance = one model; `id` names it for the memory manifest. */
export interface TextEmbedder {
  /** Stable id of the model and its settings, e.g. `use-lite@0.2.0`. Memories refuse vectors from another id. */
  readonly id: string;
  /** Length of every vector it returns. */
  readonly dimension: number;
  /** One vector per input text, L2-normalised, in input order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Frees model memory. The encoder is unusable afterwards. */
  dispose?(): Promise<void>;
}

/** What an image encoder is given: the encoded file bytes, and the caption when there is one. */
export interface ImagePayload {
  /** Encoded image file (JPEG, PNG, WebP…). Absent for caption-only images such as benchmark data. */
  readonly bytes?: Uint8Array;
  /** MIME type of `bytes`, e.g. `image/jpeg`. */
  readonly mimeType?: string;
  readonly caption?: string;
}

/** Turns images into unit-length vectors. */
export interface ImageEmbedder {
  readonly id: string;
  readonly dimension: number;
  /**
   * True when the encoder embeds the caption instead of pixels (the benchmark's `caption-proxy` mode),
   * so images without bytes still get a vector.
   */
  readonly captionOnly?: boolean;
  /**
   * One vector per image, L2-normalised. Rejects with `VmemError('IMAGE_DECODE_FAILED')` naming the
   * index of the first image it cannot decode.
   */
  embed(images: readonly ImagePayload[]): Promise<Float32Array[]>;
  dispose?(): Promise<void>;
}

/** Decoded RGBA pixels, as ImageData has them. */
export interface RgbaImage {
  readonly width: number;
  readonly height: number;
  /** width × height × 4 bytes, RGBA order. */
  readonly data: Uint8Array | Uint8ClampedArray;
}

/** Decodes an image file. Node and browsers plug in different ones. */
export type ImageDecoder = (bytes: Uint8Array, mimeType?: string) => Promise<RgbaImage>;

