import { backend_util, getKernel, registerKernel, unregisterKernel, util } from '@tensorflow/tfjs-core';
import type { KernelFunc, NamedAttrMap, TensorInfo } from '@tensorflow/tfjs-core';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';

/**
 * Replaces TF.js-WASM's `SplitV` kernel with one that copies each output straight out of the WASM heap.
 * The stock kernel copies the whole input to a JS array once per output; on USE-Lite's attention
 * (a [batch, tokens, 1536] tensor split in 3) that was ~15% of the model's run time.
 * Same results as the stock kernel; other dtypes fall back to it.
 */
export function installFastSplitV(): void {
  const stock = getKernel('SplitV', 'wasm');
  if (stock === undefined || (stock.kernelFunc as { fastSplit?: boolean }).fastSplit === true) return;
  const fallback = stock.kernelFunc;
  const fast = ((args: { inputs: { x?: TensorInfo }; attrs?: NamedAttrMap; backend: unknown }) => {
    const x = args.inputs.x;
    if (x === undefined || (x.dtype !== 'float32' && x.dtype !== 'int32')) return fallback(args as never);
    return splitFromHeap(x, args.attrs ?? {}, args.backend as BackendWasm);
  }) as KernelFunc & { fastSplit?: boolean };
  fast.fastSplit = true;
  unregisterKernel('SplitV', 'wasm');
  registerKernel({ kernelName: 'SplitV', backendName: 'wasm', kernelFunc: fast });
}

function splitFromHeap(x: TensorInfo, attrs: NamedAttrMap, backend: BackendWasm): TensorInfo[] {
  const axis = util.parseAxisParam(attrs.axis as number, x.shape)[0]!;
  const sizes = backend_util.prepareSplitSize(x as never, attrs.numOrSizeSplits as number | number[], axis);
  const outer = x.shape.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const outputs = sizes.map((size) => {
    const shape = [...x.shape];
    shape[axis] = size;
    return backend.makeOutput(shape, x.dtype);
  });
  // Views are taken only after every allocation: an allocation may grow (and replace) the heap.
  const source = backend.typedArrayFromHeap(x);
  const sourceRow = x.shape[axis]! * inner;
  let begin = 0;
  outputs.forEach((output, k) => {
    const target = backend.typedArrayFromHeap(output);
    const chunk = sizes[k]! * inner;
    for (let row = 0; row < outer; row++) {
      const from = row * sourceRow + begin;
      target.set(source.subarray(from, from + chunk), row * chunk);
    }
    begin += chunk;
  });
  return outputs;
}
