/**
 * The worker side of the protocol: hosts a text and an image encoder, runs their calls one at a
 * time, counts them, and hands vectors back as transferred buffers.
 */
import * as Comlink from 'comlink';
import { VmemError } from '../errors.js';
import type { ImageDescriber } from '../describe/types.js';
import type { ImageEmbedder, TextEmbedder } from '../encoders/types.js';
import type { ProgressCallback } from '../progress.js';
import type { Backend, EncoderCallCounts, EncoderWorkerApi, EncoderWorkerConfig, WebGpuAgreement } from './protocol.js';
import { createSerialQueue } from '../util/serial-queue.js';

/** The encoders a worker hosts, and the backend they really run on. */
export interface HostedEncoders {
  readonly text: TextEmbedder;
  readonly image?: ImageEmbedder;
  /** Describes pictures (objects, colours, readable text) for `derived` units. */
  readonly describer?: ImageDescriber;
  readonly backend: Backend;
  /** On WebGPU: the lowest cosine of the probe vectors to WASM's, per encoder. */
  readonly agreement?: WebGpuAgreement;
  /**
   * Runs the models once so the first real call is fast. The host queues it right after `load`
   * answers, so it overlaps the page's own start-up (opening IndexedDB) instead of delaying `load`.
   */
  readonly warmUp?: () => Promise<void>;
}

/** Builds the encoders for a config; the worker entry plugs in the real models. */
export type EncoderFactory = (config: EncoderWorkerConfig, onProgress?: ProgressCallback) => Promise<HostedEncoders>;

/**
 * The `EncoderWorkerApi` implementation, independent of `self` so it can run over any port.
 * @example Comlink.expose(createEncoderHost(loadRealEncoders));
 */
export function createEncoderHost(factory: EncoderFactory, fetchWordVectorFile?: () => Promise<Uint8Array>): EncoderWorkerApi {
  let encoders: HostedEncoders | undefined;
  let loading: Promise<HostedEncoders> | undefined;
  const counts = { textCalls: 0, textItems: 0, imageCalls: 0, imageItems: 0 };
  const queue = createSerialQueue();

  const loaded = (): HostedEncoders => {
    if (!encoders) throw new VmemError('MODEL_LOAD_FAILED', 'The encoders are not loaded yet; call load() and wait for it first.');
    return encoders;
  };

  return {
    async load(config, onProgress) {
      if (encoders) return describe(encoders, 0);
      const started = performance.now();
      // A failed load is not memoised, so the page may retry (e.g. after a network blip).
      loading ??= factory(config, onProgress).finally(() => {
        loading = undefined;
      });
      encoders = await loading;
      const warmUp = encoders.warmUp;
      // A failed warm-up only means the first real call is slower; that call reports real errors.
      if (warmUp) void queue.run(() => warmUp().catch(() => undefined));
      return describe(encoders, performance.now() - started);
    },
    embedTexts(texts) {
      return queue.run(async () => {
        const vectors = await loaded().text.embed(texts);
        counts.textCalls += 1;
        counts.textItems += texts.length;
        return transferVectors(vectors);
      });
    },
    embedImages(images) {
      return queue.run(async () => {
        const image = loaded().image;
        if (!image) throw new VmemError('INVALID_INPUT', 'This worker has no image encoder; images can only be stored with captions.');
        const vectors = await image.embed(images);
        counts.imageCalls += 1;
        counts.imageItems += images.length;
        return transferVectors(vectors);
      });
    },
    describeImages(images) {
      // On the same queue as encoding: the models share one ONNX Runtime, and a background job sends
      // one picture per call, so a query waits for one picture at most.
      return queue.run(async () => {
        const describer = loaded().describer;
        if (!describer) throw new VmemError('INVALID_INPUT', "This worker hosts no describer; load it with describer: 'offline'.");
        return describer.describe(images);
      });
    },
    counts: () => ({ ...counts }) satisfies EncoderCallCounts,
    async wordVectorFile() {
      if (!fetchWordVectorFile) throw new VmemError('MODEL_LOAD_FAILED', 'This worker serves no word vectors.');
      const bytes = await fetchWordVectorFile();
      return Comlink.transfer(bytes, [bytes.buffer as ArrayBuffer]);
    },
  };
}

function describe(encoders: HostedEncoders, loadMs: number) {
  const { text, image, describer, backend, agreement } = encoders;
  return {
    backend,
    ...(agreement ? { agreement } : {}),
    text: { id: text.id, dimension: text.dimension },
    ...(image ? { image: { id: image.id, dimension: image.dimension, ...(image.captionOnly ? { captionOnly: true } : {}) } } : {}),
    ...(describer ? { describer: { id: describer.id } } : {}),
    loadMs,
  };
}

/** Moves the vectors' buffers to the page instead of copying them. */
function transferVectors(vectors: Float32Array[]): Float32Array[] {
  const buffers = new Set(vectors.map((vector) => vector.buffer as ArrayBuffer));
  return Comlink.transfer(vectors, [...buffers]);
}

