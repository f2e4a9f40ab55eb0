/**
 * vmem's Node entry: the embedded encoders reading their models from node_modules, a pure-JS
 * JPEG/PNG decoder, the image resizer for answers, and a memory kept in a folder on disk. Everything in
 * `vmem` works in Node too.
 */
export { createNodeEmbeddedEncoders, createNodeUseLitePool, decodeImageNode, nodeTfjsWasmDir, nodeUseLiteModelPath, readFileAsFetch } from './encoders/node.js';
export type { NodeEmbeddedEncodersOptions, NodeUseLitePoolOptions } from './encoders/node.js';
export { nodeImageResizer } from './images/node-resize.js';
export { createFileStorage } from './storage/file-storage.js';
export type { FileMemoryStorage } from './storage/file-storage.js';
export { createNodeImageDescriber, nodeCenterNetModelPath, nodeTesseractLangPath } from './describe/node.js';
export type { NodeImageDescriberOptions } from './describe/node.js';
