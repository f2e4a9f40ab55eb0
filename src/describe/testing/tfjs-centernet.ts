/**
 * Test-only (and `bench:describe`'s reference arm): the CenterNet detector as vmem ran it before
 * ONNX Runtime, on the original TF.js graph model in `@vladmandic/human` with stock TF.js 4.22 WASM.
 * It feeds the same input and applies the same threshold and duplicate suppression as
 * `createCenterNetDetector`, so the two differ only in the runtime that runs the graph.
 */
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { readFileAsFetch } from '../../encoders/node-assets.js';
import { readTfjsModel } from '../../encoders/onnx/embedded-models.js';
import { tfjsArtifacts } from '../../encoders/testing/tfjs-reference.js';
import { ensureTfjsWasm, nodeTfjsWasmDir } from '../../encoders/testing/tfjs-wasm.js';
import { createLazy } from '../../util/lazy.js';
import { createSerialQueue } from '../../util/serial-queue.js';
import { CENTERNET_INPUT_SIZE, centerNetDetections, centerNetInput, checkedMinScore } from '../centernet.js';
import { centerNetSourcePath } from '../../encoders/onnx/node-sources.js';
import type { ObjectDetector } from '../types.js';

const OUTPUT_NODE = 'tower_0/detections';

/** CenterNet on TF.js WASM in Node. @example const reference = createTfjsCenterNetDetector(); */
export function createTfjsCenterNetDetector(options: { readonly minScore?: number } = {}): ObjectDetector & { load(): Promise<void>; dispose(): Promise<void> } {
  const minScore = checkedMinScore(options.minScore);
  const queue = createSerialQueue();
  const model = createLazy(async (): Promise<GraphModel> => {
    await ensureTfjsWasm({ wasmPaths: nodeTfjsWasmDir() });
    return loadGraphModel(tf.io.fromMemory(tfjsArtifacts(await readTfjsModel(readFileAsFetch, centerNetSourcePath(), 'CenterNet'))));
  });
  return {
    id: `centernet-mbv3-coco@human-3.3.6/tfjs-4.22/${minScore}`,
    async load() {
      await model.get();
    },
    detect(image) {
      return queue.run(async () => {
        const graph = await model.get();
        const { pixels, fit } = centerNetInput(image);
        const input = tf.tensor4d(pixels, [1, CENTERNET_INPUT_SIZE, CENTERNET_INPUT_SIZE, 3]);
        let output: tf.Tensor | undefined;
        try {
          output = graph.execute(input, OUTPUT_NODE) as tf.Tensor;
          const rows = ((await output.array()) as number[][][])[0] ?? [];
          return centerNetDetections(rows, fit, image, minScore);
        } finally {
          input.dispose();
          output?.dispose();
        }
      });
    },
    dispose() {
      return queue.run(async () => {
        model.peek()?.dispose();
        model.reset();
      });
    },
  };
}
