/**
 * Reads the weights of a TF.js model (`weightsManifest` + the concatenated shard bytes) into typed
 * arrays, dequantising exactly as TF.js does, so a converted graph starts from the same numbers.
 */
import { VmemError } from '../../errors.js';

/** One entry of a TF.js `weightsManifest` group. */
export interface TfjsWeightSpec {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly quantization?: { readonly dtype: string; readonly min?: number; readonly scale?: number };
}

/** A decoded weight. TF.js keeps every integer weight as int32 (int64 constants included). */
export interface TfjsWeight {
  readonly shape: readonly number[];
  readonly data: Float32Array | Int32Array | Uint8Array;
  readonly dtype: 'float32' | 'int32' | 'bool';
}

const STORED_BYTES: Readonly<Record<string, number>> = { float32: 4, int32: 4, bool: 1, uint8: 1, uint16: 2, float16: 2 };

/**
 * Splits `bytes` into the weights `specs` describe, in order.
 * Rejects with `MODEL_LOAD_FAILED` when a dtype is not one TF.js writes for these models or when
 * the bytes run short or long.
 */
export function decodeTfjsWeights(specs: readonly TfjsWeightSpec[], bytes: Uint8Array, what: string): Map<string, TfjsWeight> {
  const weights = new Map<string, TfjsWeight>();
  let offset = 0;
  for (const spec of specs) {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    const stored = spec.quantization?.dtype ?? spec.dtype;
    const width = STORED_BYTES[stored];
    if (width === undefined || (spec.dtype !== 'float32' && spec.dtype !== 'int32' && spec.dtype !== 'bool')) {
      throw new VmemError('MODEL_LOAD_FAILED', `${what}: weight ${spec.name} is stored as ${stored} (${spec.dtype}), which the ONNX converter does not read.`);
    }
    const end = offset + count * width;
    if (end > bytes.byteLength) {
      throw new VmemError('MODEL_LOAD_FAILED', `${what}: the weight files end inside ${spec.name} (${bytes.byteLength} bytes in all): a shard is missing or truncated.`);
    }
    // A copy, so each weight is 4-byte aligned whatever its offset in the shards.
    const raw = bytes.slice(offset, end);
    weights.set(spec.name, { shape: spec.shape, dtype: spec.dtype, data: decodeOne(spec, raw, count) });
    offset = end;
  }
  if (offset !== bytes.byteLength) {
    throw new VmemError('MODEL_LOAD_FAILED', `${what}: the weight files hold ${bytes.byteLength} bytes, the manifest describes ${offset}: they are from another model.`);
  }
  return weights;
}

function decodeOne(spec: TfjsWeightSpec, raw: Uint8Array, count: number): Float32Array | Int32Array | Uint8Array {
  const quantization = spec.quantization;
  if (quantization === undefined) {
    if (spec.dtype === 'bool') return raw;
    return spec.dtype === 'float32' ? new Float32Array(raw.buffer) : new Int32Array(raw.buffer);
  }
  if (quantization.dtype === 'float16') {
    if (spec.dtype !== 'float32') throw new VmemError('MODEL_LOAD_FAILED', `weight ${spec.name} is ${spec.dtype} stored as float16, which the ONNX converter does not read.`);
    return Float32Array.from(new Uint16Array(raw.buffer), halfToFloat);
  }
  const { min, scale } = quantization;
  if (min === undefined || scale === undefined) {
    throw new VmemError('MODEL_LOAD_FAILED', `weight ${spec.name} is quantised as ${quantization.dtype} without min/scale, which the ONNX converter does not read.`);
  }
  const levels = quantization.dtype === 'uint8' ? raw : new Uint16Array(raw.buffer);
  const out = spec.dtype === 'float32' ? new Float32Array(count) : new Int32Array(count);
  // The same expression as TF.js's io_utils.decodeWeight (integers are rounded there too).
  for (let i = 0; i < count; i++) {
    const value = levels[i]! * scale + min;
    out[i] = spec.dtype === 'float32' ? value : Math.round(value);
  }
  return out;
}

/** An IEEE half-precision value (its 16 bits) as a number: exact, as TF.js's float16 tables are. */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}
