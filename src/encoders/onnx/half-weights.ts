/**
 * Stores a converted graph's float weights at half precision where that loses nothing: a model whose
 * TF.js weights were shipped as float16 (CenterNet) would otherwise double in size as fp32. Each such
 * weight becomes a float16 initializer and a `Cast` back to float in front of its users; ONNX Runtime
 * folds the casts when it loads the model, so the session computes with exactly the fp32 numbers.
 */
import { OnnxType } from './proto.js';
import type { OnnxGraph, OnnxNode, OnnxTensor } from './proto.js';
import { halfToFloat } from './tfjs-weights.js';

/** Weights smaller than this stay as they are: a cast costs more than it saves. */
const MIN_WEIGHTS = 1024;

/** The graph with every large float weight that float16 holds exactly stored as float16. */
export function halveExactFloatWeights(graph: OnnxGraph): OnnxGraph {
  const casts: OnnxNode[] = [];
  const initializers: OnnxTensor[] = graph.initializers.map((tensor) => {
    if (tensor.type !== OnnxType.float || tensor.data.length < MIN_WEIGHTS) return tensor;
    const bits = exactHalves(tensor.data as Float32Array);
    if (bits === undefined) return tensor;
    const half = `${tensor.name}/fp16`;
    casts.push({ op: 'Cast', inputs: [half], outputs: [tensor.name], attributes: { to: { int: OnnxType.float } } });
    return { name: half, type: OnnxType.float16, dims: tensor.dims, data: bits };
  });
  return { ...graph, nodes: [...casts, ...graph.nodes], initializers };
}

/** The float16 bits of every value, or `undefined` when one of them is not a float16 value. */
function exactHalves(values: Float32Array): Uint16Array | undefined {
  const bits = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const half = halfBits(values[i]!);
    if (half === undefined) return undefined;
    bits[i] = half;
  }
  return bits;
}

/** The float16 bits of `value` when float16 holds it exactly (finite values only). */
function halfBits(value: number): number | undefined {
  if (!Number.isFinite(value)) return undefined;
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const magnitude = Math.abs(value);
  if (magnitude === 0) return sign;
  let exponent = Math.max(-14, Math.floor(Math.log2(magnitude)));
  // log2 may be off by one near powers of two.
  if (exponent > -14 && 2 ** exponent > magnitude) exponent -= 1;
  if (2 ** (exponent + 1) <= magnitude) exponent += 1;
  if (exponent > 15) return undefined;
  const normal = magnitude >= 2 ** -14;
  const fraction = normal ? (magnitude / 2 ** exponent - 1) * 1024 : magnitude / 2 ** -24;
  if (!Number.isInteger(fraction)) return undefined;
  const candidate = sign | (normal ? (exponent + 15) << 10 : 0) | fraction;
  return halfToFloat(candidate) === value ? candidate : undefined;
}
