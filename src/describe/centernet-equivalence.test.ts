/**
 * The converted CenterNet finds what the original TF.js graph finds: on every fixture photo, the ONNX
 * detector (onnxruntime-node, and onnxruntime-web's WASM backend in Node) returns the same
 * detections as TF.js 4.22 WASM after the same threshold and duplicate suppression: same classes in
 * the same order, scores within 1e-3, box edges within a pixel of the photo. The threshold is 0.2,
 * well under the default 0.45 (which keeps only 8 objects on these photos), so that many weak
 * detections are compared too; raising the threshold keeps a subset of the same list.
 */
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImageNode } from '../encoders/node-decoder.js';
import type { OrtRuntime } from '../encoders/ort-runtime.js';
import type { RgbaImage } from '../encoders/types.js';
import { fixturePhotoNames, readFixturePhoto } from '../testing/shared-data.js';
import { createCenterNetDetector } from './centernet.js';
import { MODEL_FILES } from '../encoders/model-formats.js';
import { readShippedModel } from '../encoders/node-assets.js';
import { createTfjsCenterNetDetector } from './testing/tfjs-centernet.js';
import type { Box, Detection } from './types.js';

const SCORE_TOLERANCE = 1e-3;
const BOX_TOLERANCE = 1;
const MIN_SCORE = 0.2;
const runtimes: Record<string, OrtRuntime> = { 'onnxruntime-node': ortNode, 'onnxruntime-web (WASM)': ortWeb };
ortWeb.env.wasm.numThreads = 1;

function edges(box: Box): number[] {
  return [box.x, box.y, box.x + box.width, box.y + box.height];
}

/** Where `actual` departs from `expected`, or `undefined` when they are the same detections. */
function difference(expected: readonly Detection[], actual: readonly Detection[]): string | undefined {
  const labels = (found: readonly Detection[]) => found.map((d) => d.label).join(', ');
  if (labels(expected) !== labels(actual)) return `classes ${labels(actual)} instead of ${labels(expected)}`;
  for (const [i, want] of expected.entries()) {
    const got = actual[i]!;
    if (Math.abs(got.score - want.score) > SCORE_TOLERANCE) return `${want.label} scores ${got.score} instead of ${want.score}`;
    const off = Math.max(...edges(got.box).map((edge, k) => Math.abs(edge - edges(want.box)[k]!)));
    if (off > BOX_TOLERANCE) return `${want.label}'s box is ${off.toFixed(2)} px off`;
  }
  return undefined;
}

describe('CenterNet on ONNX Runtime', () => {
  const names = fixturePhotoNames();
  const images: RgbaImage[] = [];
  const reference: Detection[][] = [];
  let model: Uint8Array;
  beforeAll(async () => {
    expect(names.length).toBeGreaterThanOrEqual(30);
    model = await readShippedModel(MODEL_FILES.centerNet, 'CenterNet');
    const tfjs = createTfjsCenterNetDetector({ minScore: MIN_SCORE });
    try {
      for (const name of names) {
        const image = await decodeImageNode(readFixturePhoto(name));
        images.push(image);
        reference.push(await tfjs.detect(image));
      }
    } finally {
      await tfjs.dispose();
    }
    // Enough objects that a wrong graph could not pass by finding nothing on either side.
    expect(reference.flat().length).toBeGreaterThanOrEqual(30);
  }, 300_000);

  for (const [name, runtime] of Object.entries(runtimes)) {
    it(`finds the same objects as TF.js on every fixture photo (${name})`, async () => {
      const detector = createCenterNetDetector({ runtime, model: async () => model, minScore: MIN_SCORE });
      try {
        const departures: string[] = [];
        for (const [i, image] of images.entries()) {
          const departure = difference(reference[i]!, await detector.detect(image));
          if (departure !== undefined) departures.push(`${names[i]}: ${departure}`);
        }
        expect(departures).toEqual([]);
      } finally {
        await detector.dispose();
      }
    }, 300_000);
  }
});
