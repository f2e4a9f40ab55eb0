/**
 * onnxruntime-node for `vmem/node`'s encoders and describer: an optional peer, imported when the
 * first model starts, so `vmem/node` itself imports without it and a missing install says what to run.
 */
import type { OrtRuntime } from './ort-runtime.js';
import { importPeer } from '../util/optional-peer.js';

let runtime: Promise<OrtRuntime> | undefined;

/** Imports onnxruntime-node once; a failed import is not kept, so installing it and retrying works. */
function loadOnnxRuntimeNode(): Promise<OrtRuntime> {
  if (runtime === undefined) {
    const loading = importPeer('onnxruntime-node', 'vmem/node (its encoders and describer)', () => import('onnxruntime-node'));
    runtime = loading;
    loading.catch(() => {
      if (runtime === loading) runtime = undefined;
    });
  }
  return runtime;
}

/**
 * An `OrtRuntime` that imports onnxruntime-node on its first session. `Tensor` is only reached after
 * a session started (an encoder feeds tensors to a loaded model), so it is the imported module's.
 */
export function nodeOrtRuntime(): OrtRuntime {
  let loaded: OrtRuntime | undefined;
  return {
    InferenceSession: {
      async create(model, options) {
        loaded = await loadOnnxRuntimeNode();
        return loaded.InferenceSession.create(model, options);
      },
    },
    get Tensor() {
      if (loaded === undefined) throw new Error('onnxruntime-node is used before any session started');
      return loaded.Tensor;
    },
  };
}
