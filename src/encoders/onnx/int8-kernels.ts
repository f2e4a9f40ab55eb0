/**
 * Stores a converted graph's large convolution kernels in int8, with one symmetric scale per output
 * channel: each kernel becomes an int8 initializer, its scales, and a `Cast` + `Mul` back to float in
 * front of its convolutions. ONNX Runtime folds those when it loads the model, so the session still
 * computes in float, on weights within half a step (1/254 of their channel's largest magnitude) of the
 * original. Unlike `half-weights.ts` and `coded-weights.ts` this is not exact: CenterNet's detections
 * move a little (measured in docs/describe.md, checked by `centernet-equivalence.test.ts`), for a file
 * of 2.5 MB instead of 4.2, 1.8 MB gzipped instead of 3.2.
 */
import { quantizeRows } from './int8-tables.js';
import { OnnxType } from './proto.js';
import type { OnnxGraph, OnnxNode, OnnxTensor } from './proto.js';

/**
 * Kernels smaller than this stay as they are. On CenterNet those are the early layers, most
 * depthwise kernels and the head's outputs: 0.2 MB of the gzipped file, and quantising them too
 * tripled the largest score change on the fixture photos (0.014 to 0.048).
 */
const MIN_WEIGHTS = 16_384;

/** The graph with every large float `Conv` kernel in int8 with a scale per output channel. */
export function quantizeConvKernels(graph: OnnxGraph): OnnxGraph {
  const decoders: OnnxNode[] = [];
  const initializers = graph.initializers.flatMap((tensor): OnnxTensor[] => {
    if (!isLargeKernel(graph, tensor)) return [tensor];
    const channels = tensor.dims[0]!;
    // Row-major, so each output channel is one row of the rest of the kernel.
    const { values, scales } = quantizeRows(tensor.data as Float32Array, channels, tensor.data.length / channels);
    const at = (part: string) => `${tensor.name}/${part}`;
    decoders.push(
      { op: 'Cast', inputs: [at('int8')], outputs: [at('levels')], attributes: { to: { int: OnnxType.float } } },
      { op: 'Mul', inputs: [at('levels'), at('int8_scale')], outputs: [tensor.name] },
    );
    return [
      { name: at('int8'), type: OnnxType.int8, dims: tensor.dims, data: values },
      // [out, 1, 1, 1]: one scale per output channel, broadcast over the rest of the kernel.
      { name: at('int8_scale'), type: OnnxType.float, dims: [channels, 1, 1, 1], data: scales },
    ];
  });
  return { ...graph, nodes: [...decoders, ...graph.nodes], initializers };
}

/** A large float weight read only as the kernel ([out, in / group, height, width]) of `Conv`s. */
function isLargeKernel(graph: OnnxGraph, tensor: OnnxTensor): boolean {
  if (tensor.type !== OnnxType.float || tensor.dims.length !== 4 || tensor.data.length < MIN_WEIGHTS) return false;
  if (graph.outputs.some((output) => output.name === tensor.name)) return false;
  const readers = graph.nodes.filter((node) => node.inputs.includes(tensor.name));
  return readers.length > 0 && readers.every((node) => node.op === 'Conv' && node.inputs.indexOf(tensor.name) === 1 && node.inputs.lastIndexOf(tensor.name) === 1);
}
