/**
 * Test-only: the TF.js vectors the converted ONNX models must reproduce. USE-Lite and MobileNetV2
 * run here on TF.js's WASM backend from the same npm packages the converter reads.
 */
import { createMobileNetImageEncoder } from '../mobilenet.js';
import { nodeTfjsWasmDir, nodeUseLiteModelPath, readFileAsFetch } from '../node-assets.js';
import { decodeImageNode } from '../node-decoder.js';
import { createUseLiteTextEncoder } from '../use-lite.js';
import { readFixturePhoto } from '../../testing/shared-data.js';

/** USE-Lite's TF.js vectors of `texts`. */
export async function tfjsTextVectors(texts: readonly string[]): Promise<Float32Array[]> {
  const encoder = createUseLiteTextEncoder({ modelUrl: nodeUseLiteModelPath(), fetch: readFileAsFetch, wasmPaths: nodeTfjsWasmDir() });
  try {
    return await encoder.embed(texts);
  } finally {
    await encoder.dispose();
  }
}

/** MobileNetV2's TF.js vectors of the fixture photos `names` (squash fit, as the encoder's default). */
export async function tfjsPhotoVectors(names: readonly string[]): Promise<Float32Array[]> {
  const encoder = createMobileNetImageEncoder({ decoder: decodeImageNode, wasmPaths: nodeTfjsWasmDir() });
  try {
    return await encoder.embed(names.map((name) => ({ bytes: readFixturePhoto(name), mimeType: 'image/jpeg' })));
  } finally {
    await encoder.dispose();
  }
}
