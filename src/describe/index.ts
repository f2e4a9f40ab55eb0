/** The offline describer: objects, colours and readable text for pictures, without an LLM. */
export { createImageDescriber, DESCRIBER_VERSION, DEFAULT_OCR_TIMEOUT_MS } from './describer.js';
export type { ImageDescriberOptions } from './describer.js';
export { createCenterNetDetector, CENTERNET_INPUT_SIZE } from './centernet.js';
export type { CenterNetDetectorOptions } from './centernet.js';
export { createTesseractTextReader } from './tesseract.js';
export type { TesseractTextReaderOptions } from './tesseract.js';
export { derivedText, labelledDescription, descriptionParts, descriptionKeywords } from './description.js';
export type { DescriptionField, DescriptionPart } from './description.js';
export { COLOUR_NAMES } from './palette.js';
export type { ColourName } from './palette.js';
export type { Box, Detection, DescribeTimings, ImageDescriber, ImageDescription, ObjectDetector, ObjectGroup, ReadOptions, ReadText, TextReader } from './types.js';
