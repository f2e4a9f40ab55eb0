/**
 * The offline describer's ports and results. An `ObjectDetector` and a `TextReader` are the parts that
 * run a model; they sit behind these small interfaces so their runtime (ONNX Runtime for the
 * detector, tesseract.js for OCR) can change without touching the description logic.
 */
import type { ImagePayload, RgbaImage } from '../encoders/types.js';
import type { ColourName } from './palette.js';

/** A rectangle in pixels of the image it was found in; `x`, `y` is the top-left corner. */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** One object a detector found. */
export interface Detection {
  /** A COCO class name, e.g. `person`, `motorcycle`, `cup`. */
  readonly label: string;
  /** The detector's confidence, 0–1. */
  readonly score: number;
  readonly box: Box;
}

/**
 * Finds objects in decoded pixels. One instance = one model; `id` names it and its settings, so an
 * upgraded detector changes the describer's id.
 */
export interface ObjectDetector {
  /** @example 'centernet-mbv3-coco@human-3.3.6/vmem-onnx-2/0.45' */
  readonly id: string;
  /** Objects in the image, best first, with boxes in the image's pixels. */
  detect(image: RgbaImage): Promise<Detection[]>;
  /** Loads the model now (otherwise the first `detect` does). Retries after a failed load. */
  load?(): Promise<void>;
  /** Frees the model; later calls reject with `CLOSED`. */
  dispose?(): Promise<void>;
}

/** What a `TextReader` read. */
export interface ReadText {
  /** The readable text, lines joined by `\n`; empty when nothing legible was found. */
  readonly text: string;
  /** True when reading stopped at the time cap (the text is then empty). */
  readonly timedOut: boolean;
}

/** How to read one picture. */
export interface ReadOptions {
  /** Past this many ms the reader gives up, frees what it was doing and resolves with `timedOut: true`. */
  readonly timeoutMs: number;
  /**
   * `even` for screenshots and rendered graphics (one global threshold separates ink from paper),
   * `uneven` for photos of pages, where light falls off across the sheet.
   */
  readonly lighting: 'even' | 'uneven';
}

/** Reads printed text (OCR). */
export interface TextReader {
  /** @example 'tesseract-5-lstm-eng-best-int@tesseract.js-7.0.0/60' */
  readonly id: string;
  read(image: RgbaImage, options: ReadOptions): Promise<ReadText>;
  load?(): Promise<void>;
  dispose?(): Promise<void>;
}

/** Objects of one class and colour. */
export interface ObjectGroup {
  /** A COCO class name other than `person`. */
  readonly label: string;
  readonly count: number;
  /** The dominant colour inside the objects' boxes, when one stands out from their surroundings. */
  readonly colour?: ColourName;
}

/** What the describer saw in one picture. Plain data (JSON-safe). */
export interface ImageDescription {
  /** Objects other than people, most confident group first. */
  readonly objects: readonly ObjectGroup[];
  /** People found (the detector's `person` class). */
  readonly people: number;
  /** The main colour of the people's clothes, when one stands out. */
  readonly peopleColour?: ColourName;
  /** Readable text, `''` when there is none or OCR did not run. */
  readonly text: string;
  /** The picture's two or three dominant colours, most frequent first. */
  readonly colours: readonly ColourName[];
  /** Text lines cover a large part of the picture: a page, a slide, a document photo. */
  readonly mostlyText: boolean;
  /** Large areas of exactly one colour with text on them: a screenshot or a rendered dialog. */
  readonly screenshot: boolean;
  /** How long each step took, in ms. `ocr` is absent when OCR did not run. */
  readonly timings: DescribeTimings;
  /** True when OCR stopped at its time cap. */
  readonly ocrTimedOut?: boolean;
}

/** Time per step of one description, in milliseconds. */
export interface DescribeTimings {
  readonly decode: number;
  readonly detect: number;
  /** Colours and the text-line test together. */
  readonly analyse: number;
  readonly ocr?: number;
}

/**
 * Describes pictures without an LLM: objects with colours and counts, people, readable text, the
 * picture's colours. `id` covers the detector, the OCR and the describer's own version, so a memory
 * re-indexes derived descriptions when any of them changes.
 */
export interface ImageDescriber {
  /** @example 'vmem-describer@1/centernet-…/tesseract-…' */
  readonly id: string;
  /**
   * One description per image, in input order. Rejects with `IMAGE_DECODE_FAILED` naming the index of
   * the first image without bytes or that cannot be decoded.
   */
  describe(images: readonly ImagePayload[]): Promise<ImageDescription[]>;
  /** Loads the models now (otherwise the first `describe` does). */
  load?(): Promise<void>;
  dispose?(): Promise<void>;
}
