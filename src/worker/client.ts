/**
 * The page side of the encoder worker: comlink plus what comlink lacks — a ready handshake, a
 * timeout on every call, and rejection of every pending call when the worker dies.
 */
import * as Comlink from 'comlink';
import { VmemError, errorCode, isVmemError } from '../errors.js';
import { embedDistinct } from './distinct-images.js';
import type { ImageDescriber } from '../describe/types.js';
import type { ImageEmbedder, ImagePayload, TextEmbedder } from '../encoders/types.js';
import { parseWordVectors } from '../encoders/word-vectors.js';
import type { WordVectors } from '../types.js';
import type { ProgressCallback } from '../progress.js';
import { watchPolicyViolations } from './policy-violations.js';
import {
  WORKER_READY_MESSAGE,
  type EncoderCallCounts,
  type EncoderWorkerApi,
  type EncoderWorkerConfig,
  type EncoderWorkerInfo,
} from './protocol.js';

/** The parts of `Worker` the client uses; a real `Worker` satisfies it. */
export interface WorkerLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: string, listener: (event: Event) => void): void;
  removeEventListener(type: string, listener: (event: Event) => void): void;
  terminate(): void;
}

/** Options of `startEncoderWorker`. */
export interface EncoderWorkerOptions {
  /** Makes the worker, e.g. `() => new Worker(new URL('…', import.meta.url), { type: 'module' })`. */
  readonly createWorker: () => WorkerLike;
  readonly config: EncoderWorkerConfig;
  /** Model download progress, in bytes. */
  readonly onProgress?: ProgressCallback;
  /**
   * A worker already started with `spawnEncoderWorker` (its module loads while the caller decides
   * the config); `createWorker` is not called then.
   */
  readonly spawned?: SpawnedEncoderWorker;
  /** How long the worker module may take to start. @default 30000 */
  readonly readyTimeoutMs?: number;
  /** How long loading the models may take (the hub models are ~100 MB). @default 600000 */
  readonly loadTimeoutMs?: number;
  /** Base time allowed for one encode call. @default 30000 */
  readonly callTimeoutMs?: number;
  /** Extra time allowed per item in an encode call. @default 5000 */
  readonly perItemTimeoutMs?: number;
  /**
   * Time allowed per picture described (the first call also loads the describer's models; OCR is
   * capped at 6 s a picture).
   * @default 30000
   */
  readonly perPictureTimeoutMs?: number;
}

/** A running encoder worker and the encoders it hosts, usable as `createMemory` options. */
export interface EncoderWorkerClient {
  readonly info: EncoderWorkerInfo;
  readonly textEncoder: TextEmbedder;
  readonly imageEncoder?: ImageEmbedder;
  /** The worker's picture describer, for `createMemory({ describer })`; absent under `describer: 'none'`. */
  readonly describer?: ImageDescriber;
  /** How often the worker encoded, since it started. */
  counts(): Promise<EncoderCallCounts>;
  /** The embedded word vectors (fetched by the worker from beside its models), for `createMemory({ wordVectors })`. */
  wordVectors(): Promise<WordVectors>;
  /** Settles with the error once the worker has died (crash, failed load, terminate). */
  readonly stopped: Promise<VmemError>;
  /** Stops the worker; pending and later calls reject with `WORKER_FAILED`. */
  terminate(): void;
}

/**
 * Starts a worker, waits for its ready message, loads the encoders, and returns proxies that
 * satisfy `TextEmbedder`/`ImageEmbedder`.
 * @example
 * const client = await startEncoderWorker({ createWorker, config: { encoders: 'embedded', backend: 'wasm', threads: 1 } });
 * const memory = await createMemory({ textEncoder: client.textEncoder, imageEncoder: client.imageEncoder, storage });
 */
export async function startEncoderWorker(options: EncoderWorkerOptions): Promise<EncoderWorkerClient> {
  const { worker, lifecycle, ready } = options.spawned ?? spawnEncoderWorker(options.createWorker);
  const remote = Comlink.wrap<EncoderWorkerApi>(worker as unknown as Comlink.Endpoint);
  const callTimeout = options.callTimeoutMs ?? 30_000;
  const loadTimeout = options.loadTimeoutMs ?? 600_000;
  const perItem = options.perItemTimeoutMs ?? 5_000;

  try {
    await lifecycle.guard('Starting the encoder worker', options.readyTimeoutMs ?? 30_000, () => ready);
    const onProgress = options.onProgress ? Comlink.proxy(options.onProgress) : undefined;
    const info = await lifecycle.guard('Loading the encoder models', loadTimeout, () =>
      remote.load(options.config, onProgress),
    );
    const textEncoder: TextEmbedder = {
      id: info.text.id,
      dimension: info.text.dimension,
      embed: (texts) =>
        lifecycle.guard(`Encoding ${texts.length} text(s)`, callTimeout + perItem * texts.length, () => remote.embedTexts([...texts])),
    };
    const imageEncoder: ImageEmbedder | undefined = info.image && {
      id: info.image.id,
      dimension: info.image.dimension,
      ...(info.image.captionOnly ? { captionOnly: true } : {}),
      embed: (images: readonly ImagePayload[]) =>
        embedDistinct(images, (unique) =>
          lifecycle.guard(`Encoding ${unique.length} image(s)`, callTimeout + perItem * unique.length, () => remote.embedImages(unique)),
        ),
    };
    const perPicture = options.perPictureTimeoutMs ?? 30_000;
    const describer: ImageDescriber | undefined = info.describer && {
      id: info.describer.id,
      describe: (images) =>
        lifecycle.guard(`Describing ${images.length} picture(s)`, callTimeout + perPicture * images.length, () => remote.describeImages([...images])),
    };
    return {
      info,
      textEncoder,
      ...(imageEncoder ? { imageEncoder } : {}),
      ...(describer ? { describer } : {}),
      counts: () => lifecycle.guard('Reading encoder counts', callTimeout, () => remote.counts()),
      wordVectors: async () => parseWordVectors(await lifecycle.guard('Loading word vectors', loadTimeout, () => remote.wordVectorFile())),
      stopped: lifecycle.stopped,
      terminate: () => lifecycle.stop(new VmemError('WORKER_FAILED', 'The encoder worker was stopped; start a new one to encode again.')),
    };
  } catch (error) {
    lifecycle.stop(error instanceof VmemError ? error : new VmemError('WORKER_FAILED', String(error), { cause: error }));
    throw error;
  }
}

/** A worker whose module is loading; hand it to `startEncoderWorker` as `spawned`, or `terminate` it. */
export interface SpawnedEncoderWorker {
  readonly worker: WorkerLike;
  readonly lifecycle: Lifecycle;
  /** Settles when the worker says it is ready. */
  readonly ready: Promise<void>;
  terminate(): void;
}

/**
 * Creates the worker and listens for its ready message and errors at once, so the worker module
 * loads while the caller still works out the config.
 */
export function spawnEncoderWorker(createWorker: () => WorkerLike): SpawnedEncoderWorker {
  const worker = createWorker();
  const lifecycle = watchWorker(worker);
  const ready = waitForReady(worker);
  return {
    worker,
    lifecycle,
    ready,
    terminate: () => lifecycle.stop(new VmemError('WORKER_FAILED', 'The encoder worker was stopped before it loaded; start a new one.')),
  };
}

export interface Lifecycle {
  /** Runs a call against the worker with a timeout; rejects at once if the worker dies meanwhile. */
  guard<T>(what: string, timeoutMs: number, call: () => Promise<T>): Promise<T>;
  readonly stopped: Promise<VmemError>;
  stop(reason: VmemError): void;
}

function watchWorker(worker: WorkerLike): Lifecycle {
  // A page's policy that blocks the worker shows only as an error event without a message.
  const violations = watchPolicyViolations((globalThis as { document?: EventTarget }).document, 'the page');
  let death: VmemError | undefined;
  const mourners = new Set<(reason: VmemError) => void>();
  let announce: (reason: VmemError) => void = () => {};
  const stopped = new Promise<VmemError>((resolve) => {
    announce = resolve;
  });

  const stop = (reason: VmemError): void => {
    if (death) return;
    death = reason;
    violations.stop();
    worker.removeEventListener('error', onError);
    worker.removeEventListener('messageerror', onMessageError);
    worker.terminate();
    for (const mourner of mourners) mourner(reason);
    mourners.clear();
    announce(reason);
  };
  const onError = (event: Event): void => {
    const message = (event as ErrorEvent).message;
    void (message ? Promise.resolve(undefined) : violations.explain()).then((blocked) => {
      if (blocked !== undefined) {
        stop(new VmemError('WORKER_FAILED', `The encoder worker could not start: ${blocked}. Allow the folder it is served from in worker-src and script-src; docs/browser.md lists the directives vmem needs.`));
        return;
      }
      const detail = message || 'it failed to load or threw an uncaught error';
      stop(new VmemError('WORKER_FAILED', `The encoder worker stopped: ${detail}. Reload the page; if it happens again, start the encoders with backend: 'wasm'.`));
    });
  };
  const onMessageError = (): void =>
    stop(new VmemError('WORKER_FAILED', 'The encoder worker sent a message the page could not read; reload the page.'));
  worker.addEventListener('error', onError);
  worker.addEventListener('messageerror', onMessageError);

  const guard = <T>(what: string, timeoutMs: number, call: () => Promise<T>): Promise<T> => {
    if (death) return Promise.reject(death);
    return new Promise<T>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        mourners.delete(onDeath);
      };
      const onDeath = (reason: VmemError): void => {
        settle();
        reject(reason);
      };
      const timer = setTimeout(() => {
        settle();
        reject(new VmemError('WORKER_TIMEOUT', `${what} took longer than ${Math.round(timeoutMs / 1000)} s; the device may be overloaded. Try again, or reload the page.`));
      }, timeoutMs);
      mourners.add(onDeath);
      call().then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(reviveError(error));
        },
      );
    });
  };
  return { guard, stopped, stop };
}

function waitForReady(worker: WorkerLike): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (event: Event): void => {
      if ((event as MessageEvent).data?.type !== WORKER_READY_MESSAGE) return;
      worker.removeEventListener('message', onMessage);
      resolve();
    };
    worker.addEventListener('message', onMessage);
  });
}

/** comlink keeps only name/message/stack; rebuild a real `VmemError` from the code kept in `name`. */
function reviveError(error: unknown): unknown {
  if (error instanceof VmemError || !isVmemError(error)) return error;
  return new VmemError(errorCode(error)!, error.message, { cause: error });
}
