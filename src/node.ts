/**
 * vmem's Node entry: the embedded encoders and the picture describer on onnxruntime-node (an optional
 * peer: `npm install onnxruntime-node@1.30.0`), their models read from the files the package ships,
 * a pure-JS JPEG/PNG decoder, the image resizer for answers, and a memory kept in a folder on disk.
 * Everything in `vmem` works in Node too.
 */
export { createNodeEmbeddedEncoders, loadNodeWordVectors, decodeImageNode } from './encoders/node.js';
export type { NodeEmbeddedEncodersOptions } from './encoders/node.js';
export { nodeImageResizer } from './images/node-resize.js';
export { createFileStorage } from './storage/file-storage.js';
export type { FileMemoryStorage, FileStorageOptions } from './storage/file-storage.js';
export type { EncryptedStorageControls } from './storage/encrypted-storage.js';
export type { Unlock } from './storage/sealer.js';
export { encryptMemoryFolder } from './storage/file-storage-encrypt.js';
export { exportMemory } from './memory/export.js';
export type { ExportOptions } from './memory/export.js';
export { createNodeImageDescriber } from './describe/node.js';
export type { NodeImageDescriberOptions } from './describe/node.js';
