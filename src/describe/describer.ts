/**
 * The offline describer: decodes a picture once, then finds its objects (detector), their colours and
 * the picture's (palette), and reads its text (OCR) only when the cheap text-line test says there is
 * text to read, so a photo of a cat costs no OCR at all.
 */
import type { ImageDecoder, ImagePayload, RgbaImage } from '../encoders/types.js';
import { isVmemError, VmemError } from '../errors.js';
import { downscaleRgba } from '../images/downscale.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { PERSON_LABEL } from './coco.js';
import { dominantColours, objectColour, type ColourName } from './palette.js';
import { findTextLines } from './text-lines.js';
import type { Detection, ImageDescriber, ImageDescription, ObjectDetector, ObjectGroup, TextReader } from './types.js';

/**
 * Version of the description logic itself (grouping, colours, text test, wording). Part of the
 * describer id: bump it when a change would describe the same picture differently.
 */
export const DESCRIBER_VERSION = 1;
/** Default cap on OCR time per picture. */
export const DEFAULT_OCR_TIMEOUT_MS = 6000;
/** Longest side OCR is given; a 12 MP photo is read at this size, which keeps time bounded. */
const OCR_MAX_SIDE = 2000;

/** Options of `createImageDescriber`. */
export interface ImageDescriberOptions {
  /** Turns file bytes into pixels: `decodeImageNode` in Node, `createBrowserImageDecoder({ maxSide: 1600 })` in browsers. */
  readonly decoder: ImageDecoder;
  /** Finds objects; without one the description has no objects or people. */
  readonly detector?: ObjectDetector;
  /** Reads text; without one the description has no text. */
  readonly textReader?: TextReader;
  /** Most ms OCR may spend on one picture; past it the picture is described without text. @default 6000 */
  readonly ocrTimeoutMs?: number;
}

/**
 * An `ImageDescriber` from a decoder, a detector and a text reader. Pictures are described one at a
 * time.
 * @example
 * const describer = createImageDescriber({ decoder: decodeImageNode, detector, textReader });
 * const [d] = await describer.describe([{ bytes, mimeType: 'image/jpeg' }]);
 * derivedText(d); // 'a red motorcycle. mostly gray, red and brown'
 */
export function createImageDescriber(options: ImageDescriberOptions): ImageDescriber & { load(): Promise<void>; dispose(): Promise<void> } {
  const ocrTimeoutMs = options.ocrTimeoutMs === undefined ? DEFAULT_OCR_TIMEOUT_MS : options.ocrTimeoutMs;
  if (!(ocrTimeoutMs > 0)) throw new VmemError('INVALID_INPUT', `ocrTimeoutMs must be a positive number of milliseconds, got ${ocrTimeoutMs}.`);
  const { detector, textReader } = options;
  const queue = createSerialQueue();
  return {
    id: `vmem-describer@${DESCRIBER_VERSION}/${detector?.id ?? 'no-detector'}/${textReader?.id ?? 'no-ocr'}`,
    async load() {
      await Promise.all([detector?.load?.(), textReader?.load?.()]);
    },
    describe(images) {
      return queue.run(async () => {
        const out: ImageDescription[] = [];
        for (const [index, image] of images.entries()) out.push(await describeOne(options.decoder, image, index, detector, textReader, ocrTimeoutMs));
        return out;
      });
    },
    async dispose() {
      await Promise.all([detector?.dispose?.(), textReader?.dispose?.()]);
    },
  };
}

async function describeOne(
  decoder: ImageDecoder,
  payload: ImagePayload,
  index: number,
  detector: ObjectDetector | undefined,
  textReader: TextReader | undefined,
  ocrTimeoutMs: number,
): Promise<ImageDescription> {
  const started = performance.now();
  const image = await decode(decoder, payload, index);
  const decoded = performance.now();
  const detections = detector ? await detector.detect(image) : [];
  const detected = performance.now();
  const people = detections.filter((found) => found.label === PERSON_LABEL);
  const objects = groupObjects(image, detections.filter((found) => found.label !== PERSON_LABEL));
  const peopleColour = mostCommon(people.map((person) => objectColour(image, person.box)));
  const colours = dominantColours(image);
  const layout = findTextLines(image);
  const analysed = performance.now();

  let text = '';
  let ocr: { ms: number; timedOut: boolean } | undefined;
  if (textReader && layout.likely) {
    const read = await textReader.read(fitForOcr(image), { timeoutMs: ocrTimeoutMs, lighting: layout.flatColours ? 'even' : 'uneven' });
    text = read.text;
    ocr = { ms: performance.now() - analysed, timedOut: read.timedOut };
  }
  return {
    objects,
    people: people.length,
    ...(peopleColour ? { peopleColour } : {}),
    text,
    colours,
    mostlyText: layout.mostlyText,
    screenshot: layout.flatColours && layout.likely,
    timings: { decode: decoded - started, detect: detected - decoded, analyse: analysed - detected, ...(ocr ? { ocr: ocr.ms } : {}) },
    ...(ocr?.timedOut ? { ocrTimedOut: true } : {}),
  };
}

async function decode(decoder: ImageDecoder, payload: ImagePayload, index: number): Promise<RgbaImage> {
  if (payload.bytes === undefined || payload.bytes.length === 0) {
    throw new VmemError('IMAGE_DECODE_FAILED', `Image ${index} has no bytes; the describer reads pixels.`);
  }
  try {
    return await decoder(payload.bytes, payload.mimeType);
  } catch (cause) {
    const reason = isVmemError(cause) ? cause.message : String((cause as Error)?.message ?? cause);
    throw new VmemError('IMAGE_DECODE_FAILED', `Image ${index} could not be decoded for its description: ${reason}.`, { cause });
  }
}

/** Same-class objects of the same colour become one group; groups keep the order of their best detection. */
function groupObjects(image: RgbaImage, detections: readonly Detection[]): ObjectGroup[] {
  const groups = new Map<string, { label: string; count: number; colour: ColourName | undefined }>();
  for (const found of detections) {
    const colour = objectColour(image, found.box);
    const key = `${found.label}/${colour ?? ''}`;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { label: found.label, count: 1, colour });
  }
  return [...groups.values()].map(({ label, count, colour }) => ({ label, count, ...(colour ? { colour } : {}) }));
}

function mostCommon<T>(values: readonly (T | undefined)[]): T | undefined {
  const counts = new Map<T, number>();
  for (const value of values) if (value !== undefined) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: T | undefined;
  for (const [value, count] of counts) if (best === undefined || count > counts.get(best)!) best = value;
  return best;
}

function fitForOcr(image: RgbaImage): RgbaImage {
  const scale = OCR_MAX_SIDE / Math.max(image.width, image.height);
  if (scale >= 1) return image;
  return downscaleRgba(image, Math.max(1, Math.round(image.width * scale)), Math.max(1, Math.round(image.height * scale)));
}
