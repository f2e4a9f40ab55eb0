/**
 * vmem's Node entry: the embedded encoders on onnxruntime-node with their models converted from
 * node_modules, a pure-JS JPEG/PNG decoder, the image resizer for answers, and a memory kept in a
 * folder on disk. Everything in `vmem` works in Node too.
 */
export { createNodeEmbeddedEncoders, loadNodeWordVectors, decodeImageNode, nodeMobileNetOnnx, nodeUseLiteOnnx, nodeUseLiteVocabPath, readFileAsFetch } from './encoders/node.js';
export type { NodeEmbeddedEncodersOptions } from './encoders/node.js';
export { nodeImageResizer } from './images/node-resize.js';
export { createFileStorage } from './storage/file-storage.js';
export type { FileMemoryStorage } from './storage/file-storage.js';
export { createNodeImageDescriber, nodeCenterNetModelPath, nodeCenterNetOnnx, nodeTesseractLangPath } from './describe/node.js';
export type { NodeImageDescriberOptions } from './describe/node.js';
