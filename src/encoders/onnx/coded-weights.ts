/**
 * Stores a converted graph's float weights as one byte per value where that loses nothing: a TF.js
 * model shipped with uint8-quantised weights (MobileNetV2 in nsfwjs) decodes to at most 256 distinct
 * floats per weight, which a 256-entry table and one code per value hold exactly. Each such weight
 * becomes a uint8 initializer, its table, and a `Cast` + `Gather` back to float in front of its users;
 * ONNX Runtime folds them when it loads the model, so the session computes with exactly the fp32
 * numbers while the file takes a quarter of the bytes.
 */
import { OnnxType } from './proto.js';
import type { OnnxGraph, OnnxNode, OnnxTensor } from './proto.js';

/** Weights smaller than this stay as they are: the table and two nodes cost more than they save. */
const MIN_WEIGHTS = 4096;
const MAX_LEVELS = 256;

/** The graph with every large float weight of at most 256 distinct values stored as codes into a table. */
export function codeFewLevelWeights(graph: OnnxGraph): OnnxGraph {
  const decoders: OnnxNode[] = [];
  const initializers: OnnxTensor[] = graph.initializers.flatMap((tensor): OnnxTensor[] => {
    if (tensor.type !== OnnxType.float || tensor.data.length < MIN_WEIGHTS) return [tensor];
    const coded = codesOf(tensor.data as Float32Array);
    if (coded === undefined) return [tensor];
    const at = (part: string) => `${tensor.name}/${part}`;
    decoders.push(
      { op: 'Cast', inputs: [at('codes')], outputs: [at('indices')], attributes: { to: { int: OnnxType.int32 } } },
      { op: 'Gather', inputs: [at('levels'), at('indices')], outputs: [tensor.name], attributes: { axis: { int: 0 } } },
    );
    return [
      { name: at('codes'), type: OnnxType.uint8, dims: tensor.dims, data: coded.codes },
      { name: at('levels'), type: OnnxType.float, dims: [coded.levels.length], data: coded.levels },
    ];
  });
  return { ...graph, nodes: [...decoders, ...graph.nodes], initializers };
}

/** One code per value into a table of the distinct values, or `undefined` when there are more than 256. */
function codesOf(values: Float32Array): { codes: Uint8Array; levels: Float32Array } | undefined {
  // Keyed by the bit pattern, so -0 and 0 (and every NaN payload) keep their own entries.
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const codeOf = new Map<number, number>();
  const codes = new Uint8Array(values.length);
  for (let i = 0; i < bits.length; i++) {
    let code = codeOf.get(bits[i]!);
    if (code === undefined) {
      if (codeOf.size === MAX_LEVELS) return undefined;
      code = codeOf.size;
      codeOf.set(bits[i]!, code);
    }
    codes[i] = code;
  }
  const levels = new Uint32Array(codeOf.size);
  for (const [pattern, code] of codeOf) levels[code] = pattern;
  return { codes, levels: new Float32Array(levels.buffer) };
}
