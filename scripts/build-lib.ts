/**
 * `npm run build:lib`: the published package in `dist/`.
 *   1. `tsc -p tsconfig.build.json`: every entry (`vmem`, `vmem/browser`, `vmem/node`, `vmem/hub`)
 *      with its declarations; the worker's own modules are left to step 2;
 *   2. the embedded models converted to ONNX (`convert-models.ts`), then the encoder worker bundled
 *      with them into `dist/worker/` (see worker-runtime.ts), where `dist/worker/bundled-worker.js`
 *      expects it, and the weights' licences beside them (`dist/worker/models/LICENSES.md`). Node's
 *      encoders read the same files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { MODEL_FILES } from '../src/encoders/model-formats.js';
import { convertModels, copyLicences } from './convert-models.js';
import { buildWorkerRuntime, WORKER_ENTRY } from './worker-runtime.js';

const root = resolve(import.meta.dirname, '..');
const dist = resolve(root, 'dist');
const started = performance.now();

rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
await convertModels();
await buildWorkerRuntime(resolve(dist, 'worker'));
await copyLicences(resolve(dist, 'worker/models'));

// The files the browser entry reaches at run time; a missing one would only show in a user's app.
const needed = [
  'browser.js',
  'browser.d.ts',
  'worker/bundled-worker.js',
  `worker/${WORKER_ENTRY}`,
  `worker/models/${MODEL_FILES.useLite.int8}`,
  `worker/models/${MODEL_FILES.useLiteVocab}`,
  `worker/models/${MODEL_FILES.mobileNet}`,
  `worker/models/${MODEL_FILES.centerNet}`,
  `worker/models/${MODEL_FILES.wordVectors}`,
  `worker/models/${MODEL_FILES.tesseractEnglish}`,
  `worker/models/${MODEL_FILES.tesseractCore}`,
  'worker/models/ort-wasm-simd-threaded.wasm',
  'worker/models/LICENSES.md',
  // The cipher worker of an encrypted memory (src/storage/cipher-thread.ts), beside the module that starts it.
  'storage/cipher.worker.js',
];
const missing = needed.filter((file) => !existsSync(resolve(dist, file)));
if (missing.length > 0) {
  console.error(`build-lib: dist/ lacks ${missing.join(', ')}`);
  process.exit(1);
}
console.log(`build-lib: dist/ ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
