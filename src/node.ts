/**
 * vmem's Node entry: the embedded encoders reading their models from node_modules, a pure-JS
 * JPEG/PNG decoder, and the image resizer for answers. Everything in `vmem` works in Node too.
 */
export { createNodeEmbeddedEncoders, createNodeUseLitePool, decodeImageNode, nodeTfjsWasmDir, nodeUseLiteModelPath, readFileAsFetch } from './encoders/node.js';
export type { NodeEmbeddedEncodersOptions, NodeUseLitePoolOptions } from './encoders/node.js';
export { nodeImageResizer } from './images/node-resize.js';
