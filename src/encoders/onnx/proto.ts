/**
 * An ONNX model writer: the few protobuf messages of `onnx.proto` a converted graph needs
 * (model, graph, node, attribute, tensor, value info), written straight to bytes. Big weight
 * tensors are kept as views until the final copy, so a 26 MB model is copied once.
 */
import { VmemError } from '../../errors.js';

/** ONNX element types (`TensorProto.DataType`) the converters use. */
export const OnnxType = { float: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9, float16: 10 } as const;
export type OnnxElementType = (typeof OnnxType)[keyof typeof OnnxType];

/** A constant tensor: raw little-endian data of its element type. */
export interface OnnxTensor {
  readonly name: string;
  readonly type: OnnxElementType;
  readonly dims: readonly number[];
  /** float16 tensors hold their bits as a Uint16Array. */
  readonly data: Float32Array | Int32Array | BigInt64Array | Uint8Array | Int8Array | Uint16Array;
}

/** An attribute value; the kind is told by which field is set. */
export type OnnxAttribute =
  | { readonly int: number }
  | { readonly ints: readonly number[] }
  | { readonly float: number }
  | { readonly string: string }
  | { readonly tensor: OnnxTensor };

export interface OnnxNode {
  readonly op: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly name?: string;
  readonly attributes?: Readonly<Record<string, OnnxAttribute>>;
}

/** A graph input or output: a name, an element type and a shape whose unknown sizes are named. */
export interface OnnxValueInfo {
  readonly name: string;
  readonly type: OnnxElementType;
  readonly dims: readonly (number | string)[];
}

export interface OnnxGraph {
  readonly name: string;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxTensor[];
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

/** The default-domain opset every converted graph declares. */
export const OPSET = 17;
const IR_VERSION = 8;

/** Serialises a graph as an ONNX model (`ModelProto`). */
export function encodeOnnxModel(graph: OnnxGraph, producer: string): Uint8Array {
  const model = new Message()
    .int(1, IR_VERSION)
    .string(2, producer)
    .message(7, encodeGraph(graph))
    .message(8, new Message().string(1, '').int(2, OPSET));
  return model.toBytes();
}

function encodeGraph(graph: OnnxGraph): Message {
  const out = new Message();
  graph.nodes.forEach((node, index) => out.message(1, encodeNode(node, index)));
  out.string(2, graph.name);
  for (const tensor of graph.initializers) out.message(5, encodeTensor(tensor));
  for (const input of graph.inputs) out.message(11, encodeValueInfo(input));
  for (const output of graph.outputs) out.message(12, encodeValueInfo(output));
  return out;
}

function encodeNode(node: OnnxNode, index: number): Message {
  const out = new Message();
  for (const input of node.inputs) out.string(1, input);
  for (const output of node.outputs) out.string(2, output);
  out.string(3, node.name ?? `${node.op}_${index}`).string(4, node.op);
  for (const [name, value] of Object.entries(node.attributes ?? {})) out.message(5, encodeAttribute(name, value));
  return out;
}

// AttributeProto.AttributeType
const ATTRIBUTE_FLOAT = 1;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_STRING = 3;
const ATTRIBUTE_TENSOR = 4;
const ATTRIBUTE_INTS = 7;

function encodeAttribute(name: string, value: OnnxAttribute): Message {
  const out = new Message().string(1, name);
  if ('int' in value) return out.int(20, ATTRIBUTE_INT).signed(3, value.int);
  if ('ints' in value) {
    out.int(20, ATTRIBUTE_INTS);
    for (const item of value.ints) out.signed(8, item);
    return out;
  }
  if ('float' in value) return out.int(20, ATTRIBUTE_FLOAT).float(2, value.float);
  if ('string' in value) return out.int(20, ATTRIBUTE_STRING).string(4, value.string);
  return out.int(20, ATTRIBUTE_TENSOR).message(5, encodeTensor(value.tensor));
}

function encodeTensor(tensor: OnnxTensor): Message {
  const out = new Message();
  for (const dim of tensor.dims) out.int(1, dim);
  out.int(2, tensor.type).string(8, tensor.name);
  // raw_data is little-endian; every platform vmem runs on is little-endian, so the view is the data.
  return out.bytes(9, new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
}

function encodeValueInfo(info: OnnxValueInfo): Message {
  const shape = new Message();
  for (const dim of info.dims) shape.message(1, typeof dim === 'number' ? new Message().int(1, dim) : new Message().string(2, dim));
  const tensorType = new Message().int(1, info.type).message(2, shape);
  return new Message().string(1, info.name).message(2, new Message().message(1, tensorType));
}

/** A protobuf message under construction: a list of byte parts and their total length. */
class Message {
  private readonly parts: Uint8Array[] = [];
  length = 0;

  int(field: number, value: number): this {
    return this.push(varint(field * 8), varint(value));
  }

  /** An int64 that may be negative (two's complement over 10 bytes, as protobuf writes it). */
  signed(field: number, value: number): this {
    return this.push(varint(field * 8), value < 0 ? negativeVarint(value) : varint(value));
  }

  float(field: number, value: number): this {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    return this.push(varint(field * 8 + 5), bytes);
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  bytes(field: number, payload: Uint8Array): this {
    return this.push(varint(field * 8 + 2), varint(payload.length), payload);
  }

  message(field: number, child: Message): this {
    this.push(varint(field * 8 + 2), varint(child.length));
    this.parts.push(...child.parts);
    this.length += child.length;
    return this;
  }

  toBytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    let offset = 0;
    for (const part of this.parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }

  private push(...parts: Uint8Array[]): this {
    for (const part of parts) {
      this.parts.push(part);
      this.length += part.length;
    }
    return this;
  }
}

function varint(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new VmemError('MODEL_LOAD_FAILED', `An ONNX field needs a non-negative safe integer, got ${value}: the model being converted has a size or count out of range.`);
  }
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return new Uint8Array(out);
}

function negativeVarint(value: number): Uint8Array {
  let rest = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (rest >= 0x80n) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
  return new Uint8Array(out);
}
