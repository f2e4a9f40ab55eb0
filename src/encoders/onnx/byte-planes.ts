/**
 * Stores a converted graph's large embedding tables (float weights read only through `Gather`) as
 * four byte planes, so they compress: brotli finds little to share between neighbouring float32
 * values, whose four bytes mix a near-constant sign and exponent with noise-like mantissa bits. Each
 * plane holds one byte of every value (plane 3 the sign and top exponent bits, plane 0 the lowest
 * mantissa bits); the planes of USE-Lite's 8 MB table compress 0.67 MB smaller than the table does
 * with brotli. The file keeps its size.
 *
 * Each lookup gathers the rows from every plane, then rebuilds their values from tables indexed by
 * the bytes of planes 3 and 2. A value x = sign * 2^(e - 127) * (1 + m / 2^23) is
 *   x = exponent[p3] * (high[p2] + low[p2] * (256 * p1 + p0))
 * where exponent[p3] = sign * 2^(2 * (p3 & 127) - 127), high[p2] = 2^(p2 >> 7) * (1 + (p2 & 127) / 128)
 * and low[p2] = 2^(p2 >> 7) / 2^23. Every step is exact in float32 (integers below 2^16, products
 * with powers of two, a sum whose result is x), so the session computes with exactly the original
 * numbers. Rebuilding after the lookup, not once at load, keeps memory as it was: ONNX Runtime would
 * fold a whole-table rebuild at load and hold every 8 MB intermediate (120 MB more at its peak). A
 * table with a zero, a subnormal, a value below 2^-125, an infinity or a NaN (where the formula or
 * its tables would not be exact), or read by anything but a `Gather` on axis 0, is left as it is.
 */
import { OnnxType } from './proto.js';
import type { OnnxGraph, OnnxNode, OnnxTensor } from './proto.js';

/** Tables smaller than this stay as they are: only large ones gain more than the nodes cost. */
const MIN_WEIGHTS = 1 << 20;
const TABLE_NAMES = { exponent: 'byte-planes/exponent', high: 'byte-planes/high', low: 'byte-planes/low', byteWeight: 'byte-planes/256' } as const;

/** The graph with every large float embedding table of normal numbers stored as four byte planes. */
export function splitEmbeddingTablesIntoBytePlanes(graph: OnnxGraph): OnnxGraph {
  const planesOf = new Map<string, Uint8Array[]>();
  for (const tensor of graph.initializers) {
    if (tensor.type !== OnnxType.float || tensor.data.length < MIN_WEIGHTS) continue;
    if (graph.outputs.some((output) => output.name === tensor.name)) continue;
    const readers = graph.nodes.filter((node) => node.inputs.includes(tensor.name));
    if (!readers.every((node) => node.op === 'Gather' && node.inputs[0] === tensor.name && node.inputs.indexOf(tensor.name, 1) < 0 && isAxisZero(node))) continue;
    const planes = bytePlanesOf(tensor.data as Float32Array);
    if (planes !== undefined) planesOf.set(tensor.name, planes);
  }
  if (planesOf.size === 0) return graph;
  const nodes = graph.nodes.flatMap((node, index): OnnxNode[] => {
    const table = node.inputs[0];
    if (node.op !== 'Gather' || table === undefined || !planesOf.has(table)) return [node];
    return rebuildAfterLookup(table, node.inputs[1]!, node.outputs[0]!, `${table}/lookup${index}`);
  });
  const initializers = graph.initializers.flatMap((tensor): OnnxTensor[] => {
    const planes = planesOf.get(tensor.name);
    if (planes === undefined) return [tensor];
    return [3, 2, 1, 0].map((plane) => ({ name: `${tensor.name}/plane${plane}`, type: OnnxType.uint8, dims: tensor.dims, data: planes[plane]! }));
  });
  const tables: OnnxTensor[] = [
    { name: TABLE_NAMES.exponent, type: OnnxType.float, dims: [256], data: TABLES.exponent },
    { name: TABLE_NAMES.high, type: OnnxType.float, dims: [256], data: TABLES.high },
    { name: TABLE_NAMES.low, type: OnnxType.float, dims: [256], data: TABLES.low },
    { name: TABLE_NAMES.byteWeight, type: OnnxType.float, dims: [], data: Float32Array.of(256) },
  ];
  return { ...graph, nodes, initializers: [...initializers, ...tables] };
}

function isAxisZero(node: OnnxNode): boolean {
  const axis = node.attributes?.axis;
  return axis === undefined || ('int' in axis && axis.int === 0);
}

/** The nodes that gather rows `indices` of `table` from its planes and rebuild them as `output`. */
function rebuildAfterLookup(table: string, indices: string, output: string, prefix: string): OnnxNode[] {
  const at = (part: string) => `${prefix}/${part}`;
  const gather = (data: string, index: string, out: string): OnnxNode => ({ op: 'Gather', inputs: [data, index], outputs: [out], attributes: { axis: { int: 0 } } });
  const cast = (input: string, out: string, to: number): OnnxNode => ({ op: 'Cast', inputs: [input], outputs: [out], attributes: { to: { int: to } } });
  return [
    ...[3, 2, 1, 0].map((plane) => gather(`${table}/plane${plane}`, indices, at(`rows${plane}`))),
    cast(at('rows3'), at('index3'), OnnxType.int32),
    cast(at('rows2'), at('index2'), OnnxType.int32),
    gather(TABLE_NAMES.exponent, at('index3'), at('scale')),
    gather(TABLE_NAMES.high, at('index2'), at('leading')),
    gather(TABLE_NAMES.low, at('index2'), at('step')),
    cast(at('rows1'), at('byte1'), OnnxType.float),
    cast(at('rows0'), at('byte0'), OnnxType.float),
    { op: 'Mul', inputs: [at('byte1'), TABLE_NAMES.byteWeight], outputs: [at('byte1x256')] },
    { op: 'Add', inputs: [at('byte1x256'), at('byte0')], outputs: [at('trailing')] },
    { op: 'Mul', inputs: [at('trailing'), at('step')], outputs: [at('rest')] },
    { op: 'Add', inputs: [at('leading'), at('rest')], outputs: [at('significand')] },
    { op: 'Mul', inputs: [at('scale'), at('significand')], outputs: [output] },
  ];
}

/** The three lookup tables of the formula above, the same for every weight. */
const TABLES = (() => {
  const exponent = new Float32Array(256);
  const high = new Float32Array(256);
  const low = new Float32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    exponent[byte] = (byte & 0x80 ? -1 : 1) * 2 ** (2 * (byte & 0x7f) - 127);
    high[byte] = 2 ** (byte >> 7) * (1 + (byte & 0x7f) / 128);
    low[byte] = 2 ** (byte >> 7) / 2 ** 23;
  }
  return { exponent, high, low };
})();

/** Byte `i` of every value in plane `i` (little-endian), or `undefined` when a value is out of the formula's range. */
function bytePlanesOf(values: Float32Array): Uint8Array[] | undefined {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const planes = [0, 1, 2, 3].map(() => new Uint8Array(values.length));
  for (let i = 0; i < bits.length; i++) {
    const pattern = bits[i]!;
    const exponent = (pattern >>> 23) & 0xff;
    // Exponent 1 would need a subnormal scale, which a CPU flushing denormals would zero.
    if (exponent < 2 || exponent === 0xff) return undefined;
    planes[0]![i] = pattern & 0xff;
    planes[1]![i] = (pattern >>> 8) & 0xff;
    planes[2]![i] = (pattern >>> 16) & 0xff;
    planes[3]![i] = pattern >>> 24;
  }
  return planes;
}
