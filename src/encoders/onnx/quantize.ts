/**
 * int8 matrix products for a converted graph. Each `MatMul` by a constant [K, N] float matrix
 * becomes an integer product:
 *   - weights: int8 values, one symmetric scale per output column, fixed at conversion, stored as
 *     uint8 around a zero point of 128;
 *   - activations: one symmetric scale per row (per token), found at run time from the row's
 *     largest magnitude, stored as uint8 around a zero point of 128;
 *   - the int32 result is scaled back by row scale × column scale.
 * Per-row scales keep each text's vector independent of the texts batched with it, and halve the
 * error of one scale per call. Standard ONNX ops only.
 *
 * Both operands are uint8 because ONNX Runtime's uint8 × int8 kernel on x86 CPUs without VNNI
 * (plain AVX2) sums pairs of products in 16 bits and saturates: measured here, the lowest cosine to
 * TF.js fell from 0.9991 to 0.969. The uint8 × uint8 kernel widens first, so every CPU computes the
 * same exact integer products.
 */
import { OnnxType } from './proto.js';
import type { OnnxGraph, OnnxNode, OnnxTensor } from './proto.js';

/** Matrices smaller than this many weights stay float: quantising them saves no time. */
const MIN_WEIGHTS = 16_384;
/** Where zero sits in both uint8 operands. */
const ZERO_POINT = 128;

/** The graph with its large constant-matrix products in int8. */
export function quantizeMatMuls(graph: OnnxGraph): OnnxGraph {
  const constants = new Map(graph.initializers.map((tensor) => [tensor.name, tensor]));
  const nodes: OnnxNode[] = [];
  const added: OnnxTensor[] = [scalar('quantize/levels', 127), scalar('quantize/offset', 128), scalar('quantize/tiny', 1e-30), { name: 'quantize/zero', type: OnnxType.uint8, dims: [], data: Uint8Array.of(ZERO_POINT) }];
  const replaced = new Set<string>();
  for (const node of graph.nodes) {
    const weight = node.op === 'MatMul' ? constants.get(node.inputs[1]!) : undefined;
    if (weight === undefined || weight.type !== OnnxType.float || weight.dims.length !== 2 || weight.data.length < MIN_WEIGHTS) {
      nodes.push(node);
      continue;
    }
    const { quantized, scales } = quantizeColumns(weight.data as Float32Array, weight.dims[0]!, weight.dims[1]!);
    const at = (name: string) => `${node.outputs[0]}/int8_${name}`;
    added.push({ name: at('weight'), type: OnnxType.uint8, dims: weight.dims, data: quantized }, { name: at('weight_scale'), type: OnnxType.float, dims: [weight.dims[1]!], data: scales });
    replaced.add(weight.name);
    const op = (type: string, inputs: string[], output: string, attributes?: OnnxNode['attributes']): OnnxNode => ({ op: type, inputs, outputs: [output], ...(attributes ? { attributes } : {}) });
    nodes.push(
      op('Abs', [node.inputs[0]!], at('abs')),
      op('ReduceMax', [at('abs')], at('row_max'), { axes: { ints: [-1] }, keepdims: { int: 1 } }),
      op('Div', [at('row_max'), 'quantize/levels'], at('row_scale_raw')),
      // A row of zeros (padding) gets a tiny scale instead of a division by zero.
      op('Max', [at('row_scale_raw'), 'quantize/tiny'], at('row_scale')),
      op('Div', [node.inputs[0]!, at('row_scale')], at('scaled')),
      op('Round', [at('scaled')], at('rounded')),
      op('Add', [at('rounded'), 'quantize/offset'], at('shifted')),
      op('Cast', [at('shifted')], at('uint8'), { to: { int: OnnxType.uint8 } }),
      op('MatMulInteger', [at('uint8'), at('weight'), 'quantize/zero', 'quantize/zero'], at('int32')),
      op('Cast', [at('int32')], at('product'), { to: { int: OnnxType.float } }),
      op('Mul', [at('product'), at('row_scale')], at('rows_scaled')),
      { op: 'Mul', inputs: [at('rows_scaled'), at('weight_scale')], outputs: node.outputs },
    );
  }
  if (replaced.size === 0) return graph;
  const stillUsed = new Set(nodes.flatMap((node) => node.inputs));
  const initializers = [...graph.initializers.filter((tensor) => !replaced.has(tensor.name) || stillUsed.has(tensor.name)), ...added];
  return { ...graph, nodes, initializers };
}

function scalar(name: string, value: number): OnnxTensor {
  return { name, type: OnnxType.float, dims: [], data: Float32Array.of(value) };
}

/** Symmetric int8 per column (column j is scaled by max|w[:, j]| / 127), shifted to uint8 by the zero point. */
function quantizeColumns(weights: Float32Array, rows: number, columns: number): { quantized: Uint8Array; scales: Float32Array } {
  const scales = new Float32Array(columns);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) scales[c] = Math.max(scales[c]!, Math.abs(weights[r * columns + c]!));
  }
  for (let c = 0; c < columns; c++) scales[c] = scales[c]! === 0 ? 1 : scales[c]! / 127;
  const quantized = new Uint8Array(weights.length);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) quantized[r * columns + c] = Math.round(weights[r * columns + c]! / scales[c]!) + ZERO_POINT;
  }
  return { quantized, scales };
}
