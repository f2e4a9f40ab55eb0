/**
 * The converted CenterNet finds what the original TF.js graph finds, on every fixture photo, after the
 * same threshold and duplicate suppression, on onnxruntime-node and on onnxruntime-web's WASM backend
 * in Node. The threshold is 0.2, well under the default 0.45 (which keeps only 8 objects on these
 * photos), so that many weak detections are compared too.
 *   - The conversion itself (`fp32`, the weights as TF.js has them, converted in memory) computes
 *     TF.js's numbers: same classes in the same order, scores within 1e-3, box edges within a pixel.
 *   - The shipped model (`int8`: its large kernels in int8) moves scores and boxes a little. It names
 *     the same objects as TF.js at the describer's threshold on every photo, and every object either
 *     side scores at least 0.25 has its twin on the other side (same class, best overlap) within 0.03
 *     of its score and at a box IoU of at least 0.95. Measured: worst score change 0.014, worst IoU
 *     0.983 (docs/describe.md). Below 0.25 a detection may cross the 0.2 threshold either way.
 */
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImageNode } from '../encoders/node-decoder.js';
import type { OrtRuntime } from '../encoders/ort-runtime.js';
import type { RgbaImage } from '../encoders/types.js';
import { fixturePhotoNames, readFixturePhoto } from '../testing/shared-data.js';
import { createCenterNetDetector } from './centernet.js';
import { overlap } from './detections.js';
import { MODEL_FILES } from '../encoders/model-formats.js';
import { readShippedModel } from '../encoders/node-assets.js';
import { convertCenterNet } from '../encoders/onnx/node-sources.js';
import { createTfjsCenterNetDetector } from './testing/tfjs-centernet.js';
import type { Box, Detection } from './types.js';

const MIN_SCORE = 0.2;
const DESCRIBER_MIN_SCORE = 0.45;
const EXACT = { score: 1e-3, box: 1 };
const INT8 = { from: 0.25, score: 0.03, iou: 0.95 };
const runtimes: Record<string, OrtRuntime> = { 'onnxruntime-node': ortNode, 'onnxruntime-web (WASM)': ortWeb };
ortWeb.env.wasm.numThreads = 1;

function edges(box: Box): number[] {
  return [box.x, box.y, box.x + box.width, box.y + box.height];
}

const labels = (found: readonly Detection[], minScore = 0) =>
  found
    .filter((d) => d.score >= minScore)
    .map((d) => d.label)
    .join(', ');

/** Where `actual` departs from `expected` beyond float rounding, or `undefined` when they are the same detections. */
function exactDifference(expected: readonly Detection[], actual: readonly Detection[]): string | undefined {
  if (labels(expected) !== labels(actual)) return `classes ${labels(actual)} instead of ${labels(expected)}`;
  for (const [i, want] of expected.entries()) {
    const got = actual[i]!;
    if (Math.abs(got.score - want.score) > EXACT.score) return `${want.label} scores ${got.score} instead of ${want.score}`;
    const off = Math.max(...edges(got.box).map((edge, k) => Math.abs(edge - edges(want.box)[k]!)));
    if (off > EXACT.box) return `${want.label}'s box is ${off.toFixed(2)} px off`;
  }
  return undefined;
}

/** The same-class detection in `among` that overlaps `found` most, and that overlap. */
function twinOf(found: Detection, among: readonly Detection[]): { twin: Detection; iou: number } | undefined {
  let best: { twin: Detection; iou: number } | undefined;
  for (const other of among) {
    const iou = other.label === found.label ? overlap(found.box, other.box) : 0;
    if (iou > 0 && (best === undefined || iou > best.iou)) best = { twin: other, iou };
  }
  return best;
}

/** Where the int8 detections depart from TF.js's by more than the int8 weights explain; the largest score change. */
function int8Differences(expected: readonly Detection[], actual: readonly Detection[]): { departures: string[]; largestChange: number } {
  const departures: string[] = [];
  let largestChange = 0;
  if (labels(expected, DESCRIBER_MIN_SCORE) !== labels(actual, DESCRIBER_MIN_SCORE)) {
    departures.push(`names ${labels(actual, DESCRIBER_MIN_SCORE)} instead of ${labels(expected, DESCRIBER_MIN_SCORE)} at ${DESCRIBER_MIN_SCORE}`);
  }
  for (const [side, from, other, to] of [['TF.js', expected, 'int8', actual], ['int8', actual, 'TF.js', expected]] as const) {
    for (const found of from.filter((d) => d.score >= INT8.from)) {
      const match = twinOf(found, to);
      const scores = `${side} ${found.score.toFixed(3)}, ${other} ${match?.twin.score.toFixed(3) ?? 'nothing'}`;
      if (match === undefined) {
        departures.push(`${found.label}: ${scores}`);
        continue;
      }
      const change = Math.abs(match.twin.score - found.score);
      largestChange = Math.max(largestChange, change);
      if (change > INT8.score) departures.push(`${found.label}: ${scores}`);
      if (match.iou < INT8.iou) departures.push(`${found.label}: ${scores}, boxes at IoU ${match.iou.toFixed(3)}`);
    }
  }
  return { departures, largestChange };
}

describe('CenterNet on ONNX Runtime', () => {
  const names = fixturePhotoNames();
  const images: RgbaImage[] = [];
  const reference: Detection[][] = [];
  const models: Record<'fp32' | 'int8', Uint8Array> = { fp32: new Uint8Array(), int8: new Uint8Array() };
  beforeAll(async () => {
    expect(names.length).toBeGreaterThanOrEqual(30);
    models.fp32 = await convertCenterNet('fp32');
    models.int8 = await readShippedModel(MODEL_FILES.centerNet, 'CenterNet');
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
    expect(reference.flat().filter((d) => d.score >= DESCRIBER_MIN_SCORE).length).toBeGreaterThanOrEqual(6);
  }, 300_000);

  /** Each photo's detections by `model` on `runtime`. */
  async function detectAll(runtime: OrtRuntime, model: Uint8Array): Promise<Detection[][]> {
    const detector = createCenterNetDetector({ runtime, model: async () => model, minScore: MIN_SCORE });
    try {
      const found: Detection[][] = [];
      for (const image of images) found.push(await detector.detect(image));
      return found;
    } finally {
      await detector.dispose();
    }
  }

  for (const [name, runtime] of Object.entries(runtimes)) {
    it(`converts the graph to compute what TF.js computes on every fixture photo (${name})`, async () => {
      const found = await detectAll(runtime, models.fp32);
      const departures = found.flatMap((detections, i) => {
        const departure = exactDifference(reference[i]!, detections);
        return departure === undefined ? [] : [`${names[i]}: ${departure}`];
      });
      expect(departures).toEqual([]);
    }, 300_000);

    it(`ships int8 kernels that find the same objects as TF.js on every fixture photo (${name})`, async () => {
      const found = await detectAll(runtime, models.int8);
      let largestChange = 0;
      const departures = found.flatMap((detections, i) => {
        const compared = int8Differences(reference[i]!, detections);
        largestChange = Math.max(largestChange, compared.largestChange);
        return compared.departures.map((departure) => `${names[i]}: ${departure}`);
      });
      expect(departures).toEqual([]);
      // The shipped file really is the int8 one: exact weights would move no score this far.
      expect(largestChange).toBeGreaterThan(EXACT.score);
    }, 300_000);
  }
});
