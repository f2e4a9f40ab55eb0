/**
 * Converts a TF.js graph model (a frozen TensorFlow graph: `modelTopology.node` + weights) into an
 * ONNX graph, op by op, for the ops USE-Lite and CenterNet use. Each TF op becomes the ONNX ops that
 * compute the same thing; nothing is approximated, so ONNX Runtime computes what TF.js computes.
 *
 * Layout: TF graphs are channels-last and ONNX's spatial ops (Conv, MaxPool, Resize) channels-first.
 * Each such op is wrapped in a pair of Transposes; ONNX Runtime's transpose optimizer cancels the
 * pairs between neighbouring ops when it loads the graph.
 *
 * Integers: TF.js runs every integer tensor as int32 (its int64 placeholders and constants too), and
 * the converted graph does the same. ONNX ops that insist on int64 (shapes, N-d indices) get a Cast
 * in front, and Shape/NonZero results are cast back to int32.
 */
import { VmemError } from '../../errors.js';
import { onnxConvKernel } from './conv-kernel.js';
import { OnnxType } from './proto.js';
import type { OnnxAttribute, OnnxElementType, OnnxGraph, OnnxNode, OnnxTensor, OnnxValueInfo } from './proto.js';
import type { TfjsWeight } from './tfjs-weights.js';

/** One attribute value as the TF.js converter writes it to model.json. */
export interface TfAttrValue {
  readonly i?: string | number;
  readonly f?: number;
  readonly b?: boolean;
  /** Base64 text, or the bytes as numbers. */
  readonly s?: string | readonly number[];
  readonly type?: string | number;
  readonly shape?: { readonly dim?: readonly { readonly size?: string | number }[] };
  readonly list?: { readonly i?: readonly (string | number)[]; readonly s?: readonly (string | readonly number[])[] };
}

/** A node of `modelTopology.node`. */
export interface TfNode {
  readonly name: string;
  readonly op: string;
  readonly input?: readonly string[];
  readonly attr?: Readonly<Record<string, TfAttrValue>>;
}

/** Options of `convertTfGraph`. */
export interface TfGraphConversion {
  readonly nodes: readonly TfNode[];
  /** Every `Const` node's value, by node name (TF.js stores them in the weights). */
  readonly weights: ReadonlyMap<string, TfjsWeight>;
  /** Name of the graph's one output in the ONNX graph. */
  readonly outputName: string;
  /** The output's dimensions, numbers or names of free ones. @default ['batch', 'features'] */
  readonly outputDims?: readonly (number | string)[];
  /** A name for the graph, and the prefix of error messages. */
  readonly graphName: string;
}

// TensorFlow's DataType enum, for the values the converter maps.
const TF_TYPES: Readonly<Record<string, 'float' | 'int' | 'bool'>> = {
  '1': 'float', DT_FLOAT: 'float',
  '3': 'int', DT_INT32: 'int',
  '9': 'int', DT_INT64: 'int',
  '10': 'bool', DT_BOOL: 'bool',
};
const ONNX_OF = { float: OnnxType.float, int: OnnxType.int32, bool: OnnxType.bool } as const;

/** TF ops that are one ONNX op with the same inputs. */
const ELEMENTWISE: Readonly<Record<string, string>> = {
  Add: 'Add', AddV2: 'Add', Sub: 'Sub', Mul: 'Mul', RealDiv: 'Div', Maximum: 'Max', Minimum: 'Min',
  Less: 'Less', Greater: 'Greater', Equal: 'Equal', LogicalNot: 'Not', Sin: 'Sin', Cos: 'Cos', Tanh: 'Tanh', Relu: 'Relu',
  Sqrt: 'Sqrt', Sigmoid: 'Sigmoid',
};

/** Activations TF fuses into a convolution (`fused_ops` after `BiasAdd`), as ONNX ops on the result. */
const FUSED_ACTIVATIONS: ReadonlySet<string> = new Set(['Relu', 'Relu6']);

const TO_CHANNELS_FIRST = [0, 3, 1, 2];
const TO_CHANNELS_LAST = [0, 2, 3, 1];

/** TF reductions and their ONNX op; ReduceSum takes its axes as an input from opset 13, the others as an attribute. */
const REDUCTIONS: Readonly<Record<string, string>> = { Sum: 'ReduceSum', Mean: 'ReduceMean', Max: 'ReduceMax', Prod: 'ReduceProd' };

const INT64_MAX = 2n ** 63n - 1n;

/**
 * Converts the graph. Rejects with `MODEL_LOAD_FAILED` naming the node when it meets an op or an
 * attribute combination it does not convert.
 */
export function convertTfGraph(conversion: TfGraphConversion): OnnxGraph {
  return new TfToOnnx(conversion).run();
}

class TfToOnnx {
  private readonly nodes: OnnxNode[] = [];
  private readonly initializers: OnnxTensor[] = [];
  private readonly inputs: OnnxValueInfo[] = [];
  private readonly ranks = new Map<string, number>();
  private readonly byName: ReadonlyMap<string, TfNode>;
  private fresh = 0;
  private readonly transposed = new Set<string>();

  constructor(private readonly conversion: TfGraphConversion) {
    this.byName = new Map(conversion.nodes.map((node) => [node.name, node]));
  }

  run(): OnnxGraph {
    const sink = this.sink();
    for (const node of this.topologicalOrder(sink)) this.convert(node);
    this.nodes.push({ op: 'Identity', inputs: [sink.name], outputs: [this.conversion.outputName] });
    // Constants that became attributes (axes, permutations) or were rewritten (kernels) are left out.
    const used = new Set(this.nodes.flatMap((node) => node.inputs));
    return {
      name: this.conversion.graphName,
      nodes: this.nodes,
      initializers: this.initializers.filter((tensor) => used.has(tensor.name)),
      inputs: this.inputs,
      outputs: [{ name: this.conversion.outputName, type: OnnxType.float, dims: this.conversion.outputDims ?? ['batch', 'features'] }],
    };
  }

  /** The one node nothing consumes: the graph's output. */
  private sink(): TfNode {
    const consumed = new Set(this.conversion.nodes.flatMap((node) => (node.input ?? []).map((ref) => parseRef(ref).node)));
    const sinks = this.conversion.nodes.filter((node) => node.op !== 'Const' && !consumed.has(node.name));
    if (sinks.length !== 1) this.fail(sinks[0] ?? this.conversion.nodes[0]!, `the graph has ${sinks.length} outputs; the converter expects one`);
    return sinks[0]!;
  }

  private topologicalOrder(sink: TfNode): TfNode[] {
    const order: TfNode[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    // Iterative depth-first search: the graph is a few hundred nodes deep at most, but recursion depth is not ours to spend.
    const stack: { node: TfNode; next: number }[] = [{ node: sink, next: 0 }];
    state.set(sink.name, 'visiting');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const refs = (top.node.input ?? []).filter((ref) => !ref.startsWith('^'));
      if (top.next < refs.length) {
        const name = parseRef(refs[top.next++]!).node;
        const child = this.byName.get(name);
        if (child === undefined) this.fail(top.node, `its input ${name} is not in the graph`);
        if (state.get(name) === 'visiting') this.fail(child, 'the graph has a cycle through it');
        if (state.get(name) === undefined) {
          state.set(name, 'visiting');
          stack.push({ node: child, next: 0 });
        }
        continue;
      }
      stack.pop();
      state.set(top.node.name, 'done');
      order.push(top.node);
    }
    return order;
  }

  private convert(node: TfNode): void {
    const inputs = (node.input ?? []).filter((ref) => !ref.startsWith('^')).map(tensorName);
    const out = node.name;
    const elementwise = ELEMENTWISE[node.op];
    if (elementwise !== undefined) return this.emit(elementwise, inputs, [out]);
    const reduction = REDUCTIONS[node.op];
    if (reduction !== undefined) return this.reduce(node, reduction, inputs);
    switch (node.op) {
      case 'Const':
        return this.constant(node);
      case 'Placeholder':
        return this.placeholder(node);
      case 'Identity':
        return this.emit('Identity', inputs, [out]);
      case 'Square':
        return this.emit('Mul', [inputs[0]!, inputs[0]!], [out]);
      case 'Rsqrt':
        return this.emit('Reciprocal', [this.emitOne('Sqrt', [inputs[0]!], node)], [out]);
      case 'BiasAdd':
        if (this.stringAttr(node, 'data_format', 'NHWC') !== 'NHWC') this.fail(node, 'only NHWC bias is converted');
        return this.emit('Add', inputs, [out]);
      case 'Softmax':
        return this.emit('Softmax', inputs, [out], { axis: { int: -1 } });
      case 'Cast':
        return this.cast(node, inputs[0]!);
      case 'Shape':
        return this.emit('Cast', [this.emitOne('Shape', inputs, node)], [out], { to: { int: OnnxType.int32 } });
      case 'Reshape':
        return this.emit('Reshape', [inputs[0]!, this.asInt64(inputs[1]!, node)], [out]);
      case 'ExpandDims':
        return this.emit('Unsqueeze', [inputs[0]!, this.int64Constant(this.constInts(inputs[1]!, node), node)], [out]);
      case 'Squeeze': {
        const axes = this.intListAttr(node, 'squeeze_dims');
        return this.emit('Squeeze', axes.length === 0 ? [inputs[0]!] : [inputs[0]!, this.int64Constant(axes, node)], [out]);
      }
      case 'Transpose': {
        const perm = this.constInts(inputs[1]!, node);
        this.ranks.set(out, perm.length);
        return this.emit('Transpose', [inputs[0]!], [out], { perm: { ints: perm } });
      }
      case 'ConcatV2': {
        const axis = this.constInts(inputs[inputs.length - 1]!, node)[0]!;
        return this.emit('Concat', inputs.slice(0, -1), [out], { axis: { int: axis } });
      }
      case 'Pack': {
        const axis = this.intAttr(node, 'axis', 0);
        const axes = this.int64Constant([axis], node);
        return this.emit('Concat', inputs.map((input) => this.emitOne('Unsqueeze', [input, axes], node)), [out], { axis: { int: axis } });
      }
      case 'SplitV':
        return this.splitV(node, inputs);
      case 'StridedSlice':
        return this.stridedSlice(node, inputs);
      case 'Slice':
        return this.slice(node, inputs);
      case 'GatherV2': {
        if (this.intAttr(node, 'batch_dims', 0) !== 0) this.fail(node, 'batch_dims other than 0 is not converted');
        const axis = this.constInts(inputs[2]!, node)[0]!;
        return this.emit('Gather', [inputs[0]!, inputs[1]!], [out], { axis: { int: axis } });
      }
      case 'GatherNd':
        return this.emit('GatherND', [inputs[0]!, this.asInt64(inputs[1]!, node)], [out]);
      case 'ScatterNd':
        return this.scatterNd(node, inputs);
      case 'SparseToDense':
        return this.sparseToDense(node, inputs);
      case 'Where': {
        // TF returns the true coordinates as [count, rank]; ONNX NonZero as [rank, count].
        const coordinates = this.emitOne('Transpose', [this.emitOne('NonZero', inputs, node)], node, { perm: { ints: [1, 0] } });
        return this.emit('Cast', [coordinates], [out], { to: { int: OnnxType.int32 } });
      }
      case 'Range':
        return this.emit('Range', inputs, [out]);
      case 'MatMul':
        return this.matMul(node, inputs, 'transpose_a', 'transpose_b');
      case 'BatchMatMul':
      case 'BatchMatMulV2':
        return this.matMul(node, inputs, 'adj_x', 'adj_y');
      case 'Relu6':
        return this.relu6(inputs[0]!, node.name, node);
      case 'FloorDiv':
        return this.floorDiv(node, inputs);
      case 'FloorMod':
        if (this.typeAttr(node, 'T') !== 'int') this.fail(node, 'only integer FloorMod is converted');
        // ONNX Mod with fmod 0 takes the divisor's sign, as TF's FloorMod does.
        return this.emit('Mod', inputs, [out], { fmod: { int: 0 } });
      case 'Conv2D':
        return this.isPointwise(node, inputs) ? this.pointwiseConv(node, inputs) : this.conv(node, inputs, false);
      case '_FusedConv2D':
        return this.conv(node, inputs, false);
      case 'DepthwiseConv2dNative':
      case 'FusedDepthwiseConv2dNative':
        return this.conv(node, inputs, true);
      case 'MaxPool':
        return this.maxPool(node, inputs[0]!);
      case 'ResizeBilinear':
        return this.resizeBilinear(node, inputs);
      case 'TopKV2':
        return this.topK(node, inputs);
      default:
        this.fail(node, `op ${node.op} is not converted`);
    }
  }

  private constant(node: TfNode): void {
    const weight = this.conversion.weights.get(node.name);
    if (weight === undefined) this.fail(node, 'its value is not in the weights manifest');
    this.ranks.set(node.name, weight.shape.length);
    const type = weight.dtype === 'float32' ? OnnxType.float : weight.dtype === 'int32' ? OnnxType.int32 : OnnxType.bool;
    this.initializers.push({ name: node.name, type, dims: weight.shape, data: weight.data });
  }

  private placeholder(node: TfNode): void {
    const dims = (node.attr?.shape?.shape?.dim ?? []).map((dim, index) => {
      const size = Number(dim.size ?? -1);
      return size >= 0 ? size : `${node.name}_${index}`;
    });
    this.ranks.set(node.name, dims.length);
    this.inputs.push({ name: node.name, type: ONNX_OF[this.typeAttr(node, 'dtype')], dims });
  }

  private cast(node: TfNode, input: string): void {
    const from = this.typeAttr(node, 'SrcT');
    const to = this.typeAttr(node, 'DstT');
    // int32 ↔ int64 is no cast at all once both are int32.
    if (from === to) return this.emit('Identity', [input], [node.name]);
    this.emit('Cast', [input], [node.name], { to: { int: ONNX_OF[to] } });
  }

  private reduce(node: TfNode, op: string, inputs: readonly string[]): void {
    const axes = this.constInts(inputs[1]!, node);
    const keepdims = { int: this.boolAttr(node, 'keep_dims') ? 1 : 0 };
    if (op === 'ReduceSum') return this.emit(op, [inputs[0]!, this.int64Constant(axes, node)], [node.name], { keepdims });
    this.emit(op, [inputs[0]!], [node.name], { axes: { ints: axes }, keepdims });
  }

  private splitV(node: TfNode, inputs: readonly string[]): void {
    const sizes = this.constInts(inputs[1]!, node);
    if (sizes.some((size) => size < 0)) this.fail(node, 'a split size of -1 is not converted');
    const axis = this.constInts(inputs[2]!, node)[0]!;
    const outputs = sizes.map((_, k) => (k === 0 ? node.name : `${node.name}:${k}`));
    this.emit('Split', [inputs[0]!, this.int64Constant(sizes, node)], outputs, { axis: { int: axis } });
  }

  private stridedSlice(node: TfNode, inputs: readonly string[]): void {
    if (this.intAttr(node, 'ellipsis_mask', 0) !== 0 || this.intAttr(node, 'new_axis_mask', 0) !== 0) {
      this.fail(node, 'ellipsis and new-axis masks are not converted');
    }
    const begin = this.constInts(inputs[1]!, node);
    const end = this.constInts(inputs[2]!, node);
    const strides = this.constInts(inputs[3]!, node);
    const beginMask = this.intAttr(node, 'begin_mask', 0);
    const endMask = this.intAttr(node, 'end_mask', 0);
    const shrinkMask = this.intAttr(node, 'shrink_axis_mask', 0);
    const starts: bigint[] = [];
    const ends: bigint[] = [];
    const shrunk: number[] = [];
    begin.forEach((_, axis) => {
      const bit = 1 << axis;
      const step = strides[axis]!;
      if (step !== 1) this.fail(node, 'strides other than 1 are not converted');
      if (shrinkMask & bit) {
        // One element, kept as an axis of size 1, then squeezed: begin -1 means the last element.
        const at = begin[axis]!;
        starts.push(BigInt(at));
        ends.push(at === -1 ? INT64_MAX : BigInt(at + 1));
        shrunk.push(axis);
        return;
      }
      starts.push(beginMask & bit ? 0n : BigInt(begin[axis]!));
      ends.push(endMask & bit ? INT64_MAX : BigInt(end[axis]!));
    });
    const axes = begin.map((_, axis) => axis);
    const sliced = this.emitOne(
      'Slice',
      [inputs[0]!, this.int64Constant(starts, node), this.int64Constant(ends, node), this.int64Constant(axes, node)],
      node,
    );
    if (shrunk.length === 0) return this.emit('Identity', [sliced], [node.name]);
    this.emit('Squeeze', [sliced, this.int64Constant(shrunk, node)], [node.name]);
  }

  private slice(node: TfNode, inputs: readonly string[]): void {
    const begin = this.constInts(inputs[1]!, node);
    const size = this.constInts(inputs[2]!, node);
    const ends = begin.map((start, axis) => (size[axis]! < 0 ? INT64_MAX : BigInt(start + size[axis]!)));
    const axes = begin.map((_, axis) => axis);
    this.emit('Slice', [inputs[0]!, this.int64Constant(begin, node), this.int64Constant(ends, node), this.int64Constant(axes, node)], [node.name]);
  }

  /** TF ScatterNd adds its updates into zeros of the given shape; duplicates add up, as with ONNX's `reduction: 'add'`. */
  private scatterNd(node: TfNode, inputs: readonly string[]): void {
    const zero = scalarTensor(`${node.name}/zero`, this.typeAttr(node, 'T'), 0);
    const zeros = this.emitOne('ConstantOfShape', [this.asInt64(inputs[2]!, node)], node, { value: { tensor: zero } });
    this.emit('ScatterND', [zeros, this.asInt64(inputs[0]!, node), inputs[1]!], [node.name], { reduction: { string: 'add' } });
  }

  /** TF SparseToDense(indices [n, rank], shape, values, default) fills the default, then writes the values. */
  private sparseToDense(node: TfNode, inputs: readonly string[]): void {
    const filled = this.emitOne('Expand', [inputs[3]!, this.asInt64(inputs[1]!, node)], node);
    this.emit('ScatterND', [filled, this.asInt64(inputs[0]!, node), inputs[2]!], [node.name]);
  }

  private matMul(node: TfNode, inputs: readonly string[], flagA: string, flagB: string): void {
    const a = this.boolAttr(node, flagA) ? this.swapLastAxes(inputs[0]!, node) : inputs[0]!;
    const b = this.boolAttr(node, flagB) ? this.swapLastAxes(inputs[1]!, node) : inputs[1]!;
    this.emit('MatMul', [a, b], [node.name]);
  }

  private swapLastAxes(input: string, node: TfNode): string {
    const rank = this.ranks.get(input) ?? (this.fail(node, `the rank of ${input} is not known, so its last two axes cannot be swapped`) as never);
    const perm = Array.from({ length: rank }, (_, axis) => axis);
    [perm[rank - 2], perm[rank - 1]] = [perm[rank - 1]!, perm[rank - 2]!];
    return this.emitOne('Transpose', [input], node, { perm: { ints: perm } });
  }

  /**
   * A 1×1 NHWC convolution with stride 1 is a matrix product over the channel axis (padding and
   * dilation change nothing at that size): the kernel [1, 1, in, out] becomes the matrix [in, out].
   */
  private isPointwise(node: TfNode, inputs: readonly string[]): boolean {
    const kernel = this.conversion.weights.get(parseRef(inputs[1]!).node);
    return kernel?.shape[0] === 1 && kernel.shape[1] === 1 && this.intListAttr(node, 'strides').every((s) => s === 1);
  }

  private pointwiseConv(node: TfNode, inputs: readonly string[]): void {
    const kernel = this.constKernel(node, inputs[1]!);
    const [, , channelsIn, channelsOut] = kernel.shape;
    const matrix = `${node.name}/kernel_matrix`;
    this.initializers.push({ name: matrix, type: OnnxType.float, dims: [channelsIn!, channelsOut!], data: kernel.data });
    this.emit('MatMul', [inputs[0]!, matrix], [node.name]);
  }

  /**
   * A (depthwise) 2-D convolution, with the bias and activation TF may have fused into it
   * (`_FusedConv2D`, `FusedDepthwiseConv2dNative`): ONNX Conv between two Transposes.
   */
  private conv(node: TfNode, inputs: readonly string[], depthwise: boolean): void {
    const kernel = this.constKernel(node, inputs[1]!);
    const fused = this.stringListAttr(node, 'fused_ops');
    const [bias, ...activations] = fused;
    if (fused.length > 0 && (bias !== 'BiasAdd' || activations.length > 1 || !activations.every((op) => FUSED_ACTIVATIONS.has(op)))) {
      this.fail(node, `fused ops ${fused.join(', ')} are not converted`);
    }
    const onnxKernel = onnxConvKernel(kernel.shape, kernel.data, depthwise);
    const weights = `${node.name}/onnx_kernel`;
    this.initializers.push({ name: weights, type: OnnxType.float, dims: onnxKernel.dims, data: onnxKernel.data });
    const convInputs = [this.channelsFirst(inputs[0]!, node), weights, ...(bias === undefined ? [] : [inputs[2]!])];
    const [, , height, width] = onnxKernel.dims;
    let result = this.emitOne('Conv', convInputs, node, {
      kernel_shape: { ints: [height, width] },
      strides: { ints: this.spatial(node, 'strides') },
      dilations: { ints: this.spatial(node, 'dilations') },
      group: { int: onnxKernel.group },
      auto_pad: { string: this.autoPad(node) },
    });
    const activation = activations[0];
    if (activation === 'Relu') result = this.emitOne('Relu', [result], node);
    if (activation === 'Relu6') {
      this.relu6(result, `${node.name}/onnx_relu6`, node);
      result = `${node.name}/onnx_relu6`;
    }
    this.emit('Transpose', [result], [node.name], { perm: { ints: TO_CHANNELS_LAST } });
  }

  private maxPool(node: TfNode, input: string): void {
    const pooled = this.emitOne('MaxPool', [this.channelsFirst(input, node)], node, {
      kernel_shape: { ints: this.spatial(node, 'ksize') },
      strides: { ints: this.spatial(node, 'strides') },
      auto_pad: { string: this.autoPad(node) },
    });
    this.emit('Transpose', [pooled], [node.name], { perm: { ints: TO_CHANNELS_LAST } });
  }

  /**
   * TF's ResizeBilinear maps output pixel x to input x · in/out (`asymmetric`), or with pixel centres
   * (`half_pixel`), or corner to corner (`align_corners`). The size input is [height, width];
   * ONNX Resize wants all four sizes, so batch and channels are taken from the input's shape.
   */
  private resizeBilinear(node: TfNode, inputs: readonly string[]): void {
    const size = this.constInts(inputs[1]!, node);
    const alignCorners = this.boolAttr(node, 'align_corners');
    const halfPixel = this.boolAttr(node, 'half_pixel_centers');
    if (alignCorners && halfPixel) this.fail(node, 'align_corners with half_pixel_centers is not converted');
    const input = this.channelsFirst(inputs[0]!, node);
    const batchAndChannels = this.emitOne(
      'Slice',
      [this.emitOne('Shape', [input], node), this.int64Constant([0], node), this.int64Constant([2], node)],
      node,
    );
    const sizes = this.emitOne('Concat', [batchAndChannels, this.int64Constant(size, node)], node, { axis: { int: 0 } });
    const resized = this.emitOne('Resize', [input, '', '', sizes], node, {
      mode: { string: 'linear' },
      coordinate_transformation_mode: { string: alignCorners ? 'align_corners' : halfPixel ? 'half_pixel' : 'asymmetric' },
    });
    this.emit('Transpose', [resized], [node.name], { perm: { ints: TO_CHANNELS_LAST } });
  }

  /** TF TopKV2 over the last axis: values, and indices as int32. Both keep the lower index first among equal values. */
  private topK(node: TfNode, inputs: readonly string[]): void {
    if (!this.boolAttr(node, 'sorted')) this.fail(node, 'only sorted top-k is converted');
    const indices = `${node.name}/onnx_indices`;
    this.emit('TopK', [inputs[0]!, this.int64Constant(this.constInts(inputs[1]!, node), node)], [node.name, indices], { axis: { int: -1 }, largest: { int: 1 }, sorted: { int: 1 } });
    this.emit('Cast', [indices], [`${node.name}:1`], { to: { int: OnnxType.int32 } });
  }

  /** Floor division: for integers (a − a mod b) / b, which ONNX's truncating Div keeps exact for either sign. */
  private floorDiv(node: TfNode, inputs: readonly string[]): void {
    const [a, b] = inputs as [string, string];
    if (this.typeAttr(node, 'T') === 'float') return this.emit('Floor', [this.emitOne('Div', [a, b], node)], [node.name]);
    const remainder = this.emitOne('Mod', [a, b], node, { fmod: { int: 0 } });
    this.emit('Div', [this.emitOne('Sub', [a, remainder], node), b], [node.name]);
  }

  private relu6(input: string, output: string, node: TfNode): void {
    const low = scalarTensor(`${node.name}/onnx_zero`, 'float', 0);
    const high = scalarTensor(`${node.name}/onnx_six`, 'float', 6);
    this.initializers.push({ ...low, dims: [] }, { ...high, dims: [] });
    this.emit('Clip', [input, low.name, high.name], [output]);
  }

  /** The NCHW copy of an NHWC tensor, made once however many ops read it. */
  private channelsFirst(input: string, node: TfNode): string {
    const name = `${input}/onnx_nchw`;
    if (!this.transposed.has(name)) {
      this.transposed.add(name);
      this.emit('Transpose', [input], [name], { perm: { ints: TO_CHANNELS_FIRST } });
    }
    return name;
  }

  private constKernel(node: TfNode, input: string): TfjsWeight {
    const kernel = this.byName.get(input)?.op === 'Const' ? this.conversion.weights.get(input) : undefined;
    if (kernel === undefined || kernel.dtype !== 'float32' || kernel.shape.length !== 4) this.fail(node, 'only convolutions with a constant 4-D kernel are converted');
    if (this.stringAttr(node, 'data_format', 'NHWC') !== 'NHWC') this.fail(node, 'only NHWC convolutions are converted');
    return kernel;
  }

  /** The height and width entries of an NHWC attribute list (strides, dilations, ksize); batch and channel entries must be 1. */
  private spatial(node: TfNode, key: string): number[] {
    const values = this.intListAttr(node, key);
    if (values.length === 0) return [1, 1];
    if (values.length !== 4 || values[0] !== 1 || values[3] !== 1) this.fail(node, `${key} ${values.join(', ')} are not converted`);
    return [values[1]!, values[2]!];
  }

  /** TF `SAME` puts the odd padding pixel after, as ONNX `SAME_UPPER` does. */
  private autoPad(node: TfNode): string {
    const padding = this.stringAttr(node, 'padding', 'VALID');
    if (padding === 'SAME') return 'SAME_UPPER';
    if (padding === 'VALID') return 'VALID';
    return this.fail(node, `padding ${padding} is not converted`);
  }

  // --- helpers ------------------------------------------------------------------------------------

  private emit(op: string, inputs: readonly string[], outputs: readonly string[], attributes?: Record<string, OnnxAttribute>): void {
    this.nodes.push({ op, inputs, outputs, ...(attributes ? { attributes } : {}) });
  }

  /** Emits one op with a fresh output name, and returns that name. */
  private emitOne(op: string, inputs: readonly string[], node: TfNode, attributes?: Record<string, OnnxAttribute>): string {
    const out = `${node.name}/onnx_${op}_${this.fresh++}`;
    this.emit(op, inputs, [out], attributes);
    return out;
  }

  private int64Constant(values: readonly (number | bigint)[], node: TfNode): string {
    const name = `${node.name}/onnx_const_${this.fresh++}`;
    this.initializers.push({ name, type: OnnxType.int64, dims: [values.length], data: BigInt64Array.from(values, (v) => BigInt(v)) });
    return name;
  }

  /** The int64 copy an ONNX op wants of an int32 tensor (folded when the tensor is a constant). */
  private asInt64(input: string, node: TfNode): string {
    const weight = this.conversion.weights.get(input);
    if (weight !== undefined && this.byName.get(input)?.op === 'Const') {
      const name = `${input}/onnx_int64`;
      if (!this.initializers.some((tensor) => tensor.name === name)) {
        this.initializers.push({ name, type: OnnxType.int64, dims: weight.shape, data: BigInt64Array.from(weight.data, (v) => BigInt(v)) });
      }
      return name;
    }
    return this.emitOne('Cast', [input], node, { to: { int: OnnxType.int64 } });
  }

  /** The values of a constant integer input (axes, permutations, slice bounds). */
  private constInts(input: string, node: TfNode): number[] {
    const weight = this.byName.get(input)?.op === 'Const' ? this.conversion.weights.get(input) : undefined;
    if (weight === undefined || weight.dtype !== 'int32') this.fail(node, `input ${input} must be a constant integer tensor`);
    return Array.from(weight.data);
  }

  private typeAttr(node: TfNode, key: string): 'float' | 'int' | 'bool' {
    const value = node.attr?.[key]?.type;
    const type = value === undefined ? undefined : TF_TYPES[String(value)];
    if (type === undefined) this.fail(node, `its ${key} type ${String(value)} is not converted`);
    return type;
  }

  private intAttr(node: TfNode, key: string, fallback: number): number {
    const value = node.attr?.[key]?.i;
    return value === undefined ? fallback : Number(value);
  }

  private boolAttr(node: TfNode, key: string): boolean {
    return node.attr?.[key]?.b === true;
  }

  private intListAttr(node: TfNode, key: string): number[] {
    return (node.attr?.[key]?.list?.i ?? []).map(Number);
  }

  private stringAttr(node: TfNode, key: string, fallback: string): string {
    const value = node.attr?.[key]?.s;
    return value === undefined ? fallback : attrText(value);
  }

  private stringListAttr(node: TfNode, key: string): string[] {
    return (node.attr?.[key]?.list?.s ?? []).map(attrText);
  }

  private fail(node: TfNode, reason: string): never {
    throw new VmemError('MODEL_LOAD_FAILED', `Converting ${this.conversion.graphName} to ONNX failed at node ${node.name} (${node.op}): ${reason}.`);
  }
}

function scalarTensor(name: string, type: 'float' | 'int' | 'bool', value: number): OnnxTensor {
  const onnxType: OnnxElementType = ONNX_OF[type];
  const data = type === 'float' ? Float32Array.of(value) : type === 'int' ? Int32Array.of(value) : Uint8Array.of(value);
  return { name, type: onnxType, dims: [1], data };
}

/** `node:1` → output 1 of `node`; `node` and `node:0` → output 0. */
function parseRef(ref: string): { node: string; output: number } {
  const match = /^(.*):(\d+)$/.exec(ref);
  return match ? { node: match[1]!, output: Number(match[2]) } : { node: ref, output: 0 };
}

/** The ONNX name of a TF tensor reference: the node's name for output 0, `node:k` for output k. */
function tensorName(ref: string): string {
  const { node, output } = parseRef(ref);
  return output === 0 ? node : `${node}:${output}`;
}

/** An attribute's text: base64 as the TF.js converter writes it, or the bytes as numbers. */
function attrText(value: string | readonly number[]): string {
  return typeof value === 'string' ? atob(value) : String.fromCharCode(...value);
}
