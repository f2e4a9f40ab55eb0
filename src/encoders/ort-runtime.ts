/**
 * The seam between the embedded encoders and ONNX Runtime. The encoders never import a runtime:
 * they are handed one (`onnxruntime-web` in browsers and workers, `onnxruntime-node` in Node, the
 * same packages transformers.js uses for the hub encoders), so one library runs on one runtime
 * wherever it is, and a host page's own copy of onnxruntime is used, never a second one.
 */
import { VmemError, isVmemError } from '../errors.js';
import { fetchBytes } from './assets.js';
import type { FetchAsset } from './assets.js';
import type { ProgressCallback } from '../progress.js';

/** The tensor element types the embedded models take and give. */
export type OrtElementType = 'float32' | 'int32';

/** A tensor as the encoders see it (a structural subset of onnxruntime's `Tensor`). */
export interface OrtTensor {
  readonly data: unknown;
  readonly dims: readonly number[];
}

/** Session settings the encoders pass through (a subset of onnxruntime's `SessionOptions`). */
export interface OrtSessionOptions {
  /**
   * Execution providers in order of preference.
   * @default ['wasm'] in browsers, ['cpu'] in Node
   */
  readonly executionProviders?: readonly string[];
  /** Threads per operator (onnxruntime-node only; browsers use `env.wasm.numThreads`). @default onnxruntime's choice */
  readonly intraOpNumThreads?: number;
}

export interface OrtSession {
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
}

/**
 * The parts of an onnxruntime module the encoders use.
 * @example const runtime: OrtRuntime = await import('onnxruntime-web');
 */
export interface OrtRuntime {
  readonly InferenceSession: { create(model: Uint8Array, options?: OrtSessionOptions): Promise<OrtSession> };
  readonly Tensor: new (type: OrtElementType, data: Float32Array | Int32Array, dims: readonly number[]) => OrtTensor;
}

/** Starts a session on `model`; a runtime's refusal becomes `MODEL_LOAD_FAILED` naming `what`. */
export async function createOrtSession(runtime: OrtRuntime, model: Uint8Array, options: OrtSessionOptions, what: string): Promise<OrtSession> {
  try {
    return await runtime.InferenceSession.create(model, options);
  } catch (cause) {
    // A runtime that is not installed (DEPENDENCY_MISSING) says so itself.
    if (isVmemError(cause)) throw cause;
    const providers = options.executionProviders?.join(', ') ?? "onnxruntime's default provider";
    throw new VmemError('MODEL_LOAD_FAILED', `ONNX Runtime could not start ${what} on ${providers}: ${String((cause as Error)?.message ?? cause)}`, { cause });
  }
}

/** Runs a session and returns one output's float data. */
export async function runForFloats(session: OrtSession, feeds: Record<string, OrtTensor>, output: string): Promise<Float32Array> {
  const tensor = (await session.run(feeds))[output];
  if (tensor === undefined || !(tensor.data instanceof Float32Array)) {
    throw new VmemError('MODEL_LOAD_FAILED', `The model gave no float output named ${output}; it is not the converted model vmem expects.`);
  }
  return tensor.data;
}

/** Where a converted model comes from: the URL (or path) of its `.onnx` file, or a function giving its bytes. */
export type OnnxModelSource = string | (() => Promise<Uint8Array>);

/** The model bytes, with progress (`task: 'model'`, `unit: 'bytes'`) as they arrive and once they are in memory. */
export async function readModel(source: OnnxModelSource, fetchAsset: FetchAsset, item: string, onProgress: ProgressCallback | undefined): Promise<Uint8Array> {
  const report = onProgress && ((loaded: number, total: number) => onProgress({ status: 'progress', task: 'model', item, unit: 'bytes', loaded, total }));
  const bytes = typeof source === 'string' ? await fetchBytes(fetchAsset, source, `the ${item} model`, report) : await source();
  report?.(bytes.byteLength, bytes.byteLength);
  onProgress?.({ status: 'done', task: 'model', item });
  return bytes;
}

/** What `loadModelSession` reads and starts. */
export interface ModelSessionSource {
  readonly runtime: OrtRuntime;
  readonly model: OnnxModelSource;
  readonly fetch: FetchAsset;
  readonly sessionOptions?: OrtSessionOptions;
  readonly onProgress?: ProgressCallback;
}

/** Reads a converted model and starts its session, with progress from `initiate` to `ready` under `item`; `what` names it in errors. */
export async function loadModelSession(source: ModelSessionSource, item: string, what: string): Promise<OrtSession> {
  source.onProgress?.({ status: 'initiate', task: 'model', item });
  const bytes = await readModel(source.model, source.fetch, item, source.onProgress);
  const session = await createOrtSession(source.runtime, bytes, source.sessionOptions ?? {}, what);
  source.onProgress?.({ status: 'ready', task: 'model', item });
  return session;
}
