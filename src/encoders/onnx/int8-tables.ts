/**
 * Stores a converted graph's large embedding tables (float weights read only through `Gather` on
 * axis 0) in int8, with one symmetric scale per row: each lookup gathers the int8 rows and their
 * scales and multiplies them back to floats. USE-Lite's 8002 × 256 table goes from 8 MB to 2 MB:
 * the whole model from 13.4 MB to 7.3, and with brotli from 11.4 MB to 6.4, the largest file of a
 * first visit. A row's largest magnitude maps to ±127, so every value is within half a step (1/254 of
 * that magnitude) of the original; the retrieval curves this moves are measured in
 * docs/architecture.md ("int8 USE-Lite").
 */
import { OnnxType } from './proto.js';
import type { OnnxGraph, OnnxNode, OnnxTensor } from './proto.js';

/** Tables smaller than this stay float: only large ones gain more than the nodes cost. */
const MIN_WEIGHTS = 1 << 20;
const LEVELS = 127;

/** The graph with every large float embedding table in int8 with a scale per row. */
export function quantizeEmbeddingTables(graph: OnnxGraph): OnnxGraph {
  const quantizedOf = new Map<string, { readonly values: OnnxTensor; readonly scales: OnnxTensor }>();
  for (const tensor of graph.initializers) {
    if (!isLookupTable(graph, tensor)) continue;
    const [rows, width] = tensor.dims as [number, number];
    const { values, scales } = quantizeRows(tensor.data as Float32Array, rows, width);
    quantizedOf.set(tensor.name, {
      values: { name: `${tensor.name}/int8`, type: OnnxType.int8, dims: tensor.dims, data: values },
      scales: { name: `${tensor.name}/int8_scale`, type: OnnxType.float, dims: [rows, 1], data: scales },
    });
  }
  if (quantizedOf.size === 0) return graph;
  const nodes = graph.nodes.flatMap((node, index): OnnxNode[] => {
    const table = quantizedOf.get(node.inputs[0] ?? '');
    if (node.op !== 'Gather' || table === undefined) return [node];
    const at = (part: string) => `${node.inputs[0]}/lookup${index}/${part}`;
    const gather = (data: string, out: string): OnnxNode => ({ op: 'Gather', inputs: [data, node.inputs[1]!], outputs: [out], attributes: { axis: { int: 0 } } });
    return [
      gather(table.values.name, at('rows')),
      gather(table.scales.name, at('scales')),
      { op: 'Cast', inputs: [at('rows')], outputs: [at('levels')], attributes: { to: { int: OnnxType.float } } },
      { op: 'Mul', inputs: [at('levels'), at('scales')], outputs: [node.outputs[0]!] },
    ];
  });
  const initializers = graph.initializers.flatMap((tensor): OnnxTensor[] => {
    const quantized = quantizedOf.get(tensor.name);
    return quantized === undefined ? [tensor] : [quantized.values, quantized.scales];
  });
  return { ...graph, nodes, initializers };
}

/** A large 2-d float constant that only `Gather`s on axis 0 read, as their table. */
function isLookupTable(graph: OnnxGraph, tensor: OnnxTensor): boolean {
  if (tensor.type !== OnnxType.float || tensor.dims.length !== 2 || tensor.data.length < MIN_WEIGHTS) return false;
  if (graph.outputs.some((output) => output.name === tensor.name)) return false;
  const readers = graph.nodes.filter((node) => node.inputs.includes(tensor.name));
  return readers.length > 0 && readers.every((node) => node.op === 'Gather' && node.inputs[0] === tensor.name && node.inputs.indexOf(tensor.name, 1) < 0 && isAxisZero(node));
}

function isAxisZero(node: OnnxNode): boolean {
  const axis = node.attributes?.axis;
  return axis === undefined || ('int' in axis && axis.int === 0);
}

/** Each row as int8 levels of its own scale (its largest magnitude / 127; a row of zeros gets scale 0). */
export function quantizeRows(table: Float32Array, rows: number, width: number): { values: Int8Array; scales: Float32Array } {
  const values = new Int8Array(table.length);
  const scales = new Float32Array(rows);
  for (let row = 0; row < rows; row++) {
    const start = row * width;
    let largest = 0;
    for (let i = start; i < start + width; i++) largest = Math.max(largest, Math.abs(table[i]!));
    const scale = largest / LEVELS;
    scales[row] = scale;
    if (scale === 0) continue;
    for (let i = start; i < start + width; i++) values[i] = Math.round(table[i]! / scale);
  }
  return { values, scales };
}
