/**
 * Converts a TF.js layers model (Keras functional `model_config` + weights) into an ONNX graph,
 * layer by layer, up to a named layer, for the layers MobileNetV2 uses. Keras is channels-last and
 * ONNX convolutions are channels-first: the input is transposed once, every layer runs NCHW, and
 * `Flatten` transposes back first so the flattened order is Keras's.
 */
import { VmemError } from '../../errors.js';
import { onnxConvKernel } from './conv-kernel.js';
import { OnnxType } from './proto.js';
import type { OnnxAttribute, OnnxGraph, OnnxNode, OnnxTensor } from './proto.js';
import type { TfjsWeight } from './tfjs-weights.js';

/** One layer of a Keras functional model config. */
export interface KerasLayer {
  readonly class_name: string;
  readonly name: string;
  readonly config: Readonly<Record<string, unknown>>;
  /** `[[[inputLayer, nodeIndex, tensorIndex, kwargs], …]]`: one call of the layer on its inputs. */
  readonly inbound_nodes: readonly (readonly (readonly unknown[])[])[];
}

/** Options of `convertKerasLayers`. */
export interface KerasConversion {
  readonly layers: readonly KerasLayer[];
  /** Weights by name (`<layer>/kernel`, `<layer>/gamma`, …). */
  readonly weights: ReadonlyMap<string, TfjsWeight>;
  /** The layer whose output is the graph's output; later layers are left out. */
  readonly outputLayer: string;
  readonly inputName: string;
  readonly outputName: string;
  /** A name for the graph, and the prefix of error messages. */
  readonly graphName: string;
}

/** Converts the layers up to `outputLayer`. Rejects with `MODEL_LOAD_FAILED` naming the layer it cannot convert. */
export function convertKerasLayers(conversion: KerasConversion): OnnxGraph {
  return new KerasToOnnx(conversion).run();
}

class KerasToOnnx {
  private readonly nodes: OnnxNode[] = [];
  private readonly initializers: OnnxTensor[] = [];
  private readonly byName: ReadonlyMap<string, KerasLayer>;
  private inputDims: (number | string)[] = [];

  constructor(private readonly conversion: KerasConversion) {
    this.byName = new Map(conversion.layers.map((layer) => [layer.name, layer]));
  }

  run(): OnnxGraph {
    const { inputName, outputName, outputLayer } = this.conversion;
    for (const layer of this.layersUpTo(outputLayer)) this.convert(layer);
    this.emit('Identity', [outputLayer], outputName);
    return {
      name: this.conversion.graphName,
      nodes: this.nodes,
      initializers: this.initializers,
      inputs: [{ name: inputName, type: OnnxType.float, dims: this.inputDims }],
      outputs: [{ name: outputName, type: OnnxType.float, dims: ['batch', 'features'] }],
    };
  }

  /** The layers `last` depends on, inputs first (the config lists them in that order already). */
  private layersUpTo(last: string): KerasLayer[] {
    const needed = new Set<string>();
    const pending = [last];
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (needed.has(name)) continue;
      const layer = this.byName.get(name);
      if (layer === undefined) throw new VmemError('MODEL_LOAD_FAILED', `Converting ${this.conversion.graphName} to ONNX failed: it has no layer ${name}.`);
      needed.add(name);
      pending.push(...inboundNames(layer));
    }
    return this.conversion.layers.filter((layer) => needed.has(layer.name));
  }

  private convert(layer: KerasLayer): void {
    const inputs = inboundNames(layer);
    const input = inputs[0]!;
    const config = layer.config;
    switch (layer.class_name) {
      case 'InputLayer': {
        const shape = config['batch_input_shape'] as readonly (number | null)[];
        this.inputDims = shape.map((size, axis) => (size === null ? (axis === 0 ? 'batch' : `dim_${axis}`) : size));
        return this.emit('Transpose', [this.conversion.inputName], layer.name, { perm: { ints: [0, 3, 1, 2] } });
      }
      case 'ZeroPadding2D': {
        const [[top, bottom], [left, right]] = config['padding'] as [[number, number], [number, number]];
        const pads = this.int64(`${layer.name}/pads`, [0, 0, top, left, 0, 0, bottom, right]);
        return this.emit('Pad', [input, pads], layer.name);
      }
      case 'Conv2D':
        return this.conv(layer, input, false);
      case 'DepthwiseConv2D':
        return this.conv(layer, input, true);
      case 'BatchNormalization':
        return this.batchNorm(layer, input);
      case 'ReLU':
        return this.relu(layer, input);
      case 'Add':
        return this.emit('Add', inputs, layer.name);
      case 'AveragePooling2D':
        return this.emit('AveragePool', [input], layer.name, {
          kernel_shape: { ints: config['pool_size'] as number[] },
          strides: { ints: config['strides'] as number[] },
          auto_pad: { string: this.autoPad(layer) },
        });
      case 'Flatten': {
        const channelsLast = `${layer.name}/channels_last`;
        this.emit('Transpose', [input], channelsLast, { perm: { ints: [0, 2, 3, 1] } });
        return this.emit('Flatten', [channelsLast], layer.name, { axis: { int: 1 } });
      }
      default:
        this.fail(layer, `layer class ${layer.class_name} is not converted`);
    }
  }

  private conv(layer: KerasLayer, input: string, depthwise: boolean): void {
    const config = layer.config;
    this.requireLinear(layer);
    if (config['data_format'] !== 'channels_last') this.fail(layer, 'only channels_last data is converted');
    const kernel = this.weight(layer, depthwise ? 'depthwise_kernel' : 'kernel');
    const onnxKernel = onnxConvKernel(kernel.shape, kernel.data, depthwise);
    const [, , height, width] = onnxKernel.dims;
    const inputs = [input, this.tensor(`${layer.name}/onnx_kernel`, onnxKernel.dims, onnxKernel.data)];
    if (config['use_bias'] === true) inputs.push(this.passThrough(layer, 'bias'));
    this.emit('Conv', inputs, layer.name, {
      kernel_shape: { ints: [height, width] },
      strides: { ints: config['strides'] as number[] },
      dilations: { ints: config['dilation_rate'] as number[] },
      group: { int: onnxKernel.group },
      auto_pad: { string: this.autoPad(layer) },
    });
  }

  private batchNorm(layer: KerasLayer, input: string): void {
    const config = layer.config;
    if (config['axis'] !== -1 && config['axis'] !== 3) this.fail(layer, 'only batch normalisation over the channel axis is converted');
    if (config['scale'] !== true || config['center'] !== true) this.fail(layer, 'only batch normalisation with both scale and center is converted');
    const inputs = [input, ...['gamma', 'beta', 'moving_mean', 'moving_variance'].map((part) => this.passThrough(layer, part))];
    this.emit('BatchNormalization', inputs, layer.name, { epsilon: { float: config['epsilon'] as number } });
  }

  private relu(layer: KerasLayer, input: string): void {
    const { max_value: max, negative_slope: slope, threshold } = layer.config as { max_value?: number | null; negative_slope?: number; threshold?: number };
    if ((slope ?? 0) !== 0 || (threshold ?? 0) !== 0) this.fail(layer, 'only plain or capped ReLU is converted');
    if (max === undefined || max === null) return this.emit('Relu', [input], layer.name);
    const low = this.tensor(`${layer.name}/min`, [], Float32Array.of(0));
    const high = this.tensor(`${layer.name}/max`, [], Float32Array.of(max));
    this.emit('Clip', [input, low, high], layer.name);
  }

  /** Keras `same` padding puts the odd pixel after, as ONNX `SAME_UPPER` does. */
  private autoPad(layer: KerasLayer): string {
    const padding = layer.config['padding'];
    if (padding === 'same') return 'SAME_UPPER';
    if (padding === 'valid') return 'VALID';
    return this.fail(layer, `padding ${String(padding)} is not converted`);
  }

  private requireLinear(layer: KerasLayer): void {
    const activation = layer.config['activation'];
    if (activation !== undefined && activation !== 'linear') this.fail(layer, `activation ${String(activation)} is not converted`);
  }

  private weight(layer: KerasLayer, part: string): TfjsWeight {
    const weight = this.conversion.weights.get(`${layer.name}/${part}`);
    if (weight === undefined || weight.dtype !== 'float32') this.fail(layer, `weight ${layer.name}/${part} is missing`);
    return weight;
  }

  /** A weight used as it is, as an initializer of the same name. */
  private passThrough(layer: KerasLayer, part: string): string {
    const weight = this.weight(layer, part);
    return this.tensor(`${layer.name}/${part}`, weight.shape, weight.data as Float32Array);
  }

  private tensor(name: string, dims: readonly number[], data: Float32Array): string {
    this.initializers.push({ name, type: OnnxType.float, dims, data });
    return name;
  }

  private int64(name: string, values: readonly number[]): string {
    this.initializers.push({ name, type: OnnxType.int64, dims: [values.length], data: BigInt64Array.from(values, BigInt) });
    return name;
  }

  private emit(op: string, inputs: readonly string[], output: string, attributes?: Record<string, OnnxAttribute>): void {
    this.nodes.push({ op, inputs, outputs: [output], ...(attributes ? { attributes } : {}) });
  }

  private fail(layer: KerasLayer, reason: string): never {
    throw new VmemError('MODEL_LOAD_FAILED', `Converting ${this.conversion.graphName} to ONNX failed at layer ${layer.name} (${layer.class_name}): ${reason}.`);
  }
}

/** The names of the layers a layer is called on (its first call; shared layers are not converted). */
function inboundNames(layer: KerasLayer): string[] {
  if (layer.inbound_nodes.length > 1) {
    throw new VmemError('MODEL_LOAD_FAILED', `Converting to ONNX failed at layer ${layer.name}: it is called more than once, which the converter does not handle.`);
  }
  return (layer.inbound_nodes[0] ?? []).map((call) => String(call[0]));
}
