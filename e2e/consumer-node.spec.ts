/**
 * The package as Node users meet it, installed from the packed tarball into empty folders with no
 * `.npmrc` and none of npm's or onnxruntime's environment variables:
 *   - alone (what a browser app installs): the install succeeds on this machine (which has CUDA's
 *     `nvcc`, so onnxruntime-node's install script would try a CUDA download), node_modules stays
 *     small and holds no native or unused runtime, and `vmem/node` and `vmem/hub` import but say
 *     which optional peer to install when a model is asked for;
 *   - with the peers `vmem/node` and `vmem/hub` need: one process runs `vmem/node`'s embedded encoders
 *     and then `vmem/hub`'s (on models the test writes), on one onnxruntime-node.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { writeTinyBertModel, writeTinySiglipVisionModel } from '../src/encoders/testing/tiny-onnx.js';
import { FIXTURE_PHOTOS_DIR } from '../src/testing/shared-data.js';
import { folderBytes, npmInstall, packedTarball, userEnvironment } from './consumer-helpers.js';

test.describe.configure({ mode: 'serial', timeout: 600_000 });

/** The bound on a browser-only install. */
const MAX_INSTALL_BYTES = 150e6;
const NOT_INSTALLED = ['onnxruntime-node', '@tensorflow', '@huggingface', '@mlc-ai', 'onnxruntime-web', 'tesseract.js'];

let work = '';

test.beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'vmem-node-consumer-'));
});

test.afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs an ES module script in `folder` with Node and returns its stdout; a failure throws with stderr. */
function runNode(folder: string, script: string, args: readonly string[] = []): string {
  writeFileSync(join(folder, 'script.mjs'), script);
  const result = spawnSync(process.execPath, ['script.mjs', ...args], { cwd: folder, env: userEnvironment(), encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) throw new Error(`node script.mjs failed (${result.status}):\n${result.stderr}`);
  return result.stdout;
}

test('the tarball alone installs with no .npmrc and no environment variables, small and without native or unused runtimes', () => {
  const folder = join(work, 'alone');
  npmInstallInto(folder, [packedTarball()]);
  const modules = join(folder, 'node_modules');
  const bytes = folderBytes(modules);
  console.log(`node_modules after installing the tarball alone: ${(bytes / 1e6).toFixed(1)} MB (${readdirSync(modules).join(', ')})`);
  expect(bytes).toBeLessThanOrEqual(MAX_INSTALL_BYTES);
  for (const name of NOT_INSTALLED) expect(existsSync(join(modules, name)), `${name} installed`).toBe(false);

  // Both entries import; asking for a model names the optional peer and how to install it.
  const answers = JSON.parse(
    runNode(
      folder,
      `import { createNodeEmbeddedEncoders } from 'vmem/node';
       import { createHubTextEncoder } from 'vmem/hub';
       const outcome = (promise) => promise.then(() => 'loaded', (error) => ({ code: error.code, message: error.message }));
       console.log(JSON.stringify({
         node: await outcome(createNodeEmbeddedEncoders().text.load()),
         hub: await outcome(createHubTextEncoder({ model: 'none', allowRemote: false })),
       }));`,
    ),
  ) as Record<string, { code: string; message: string }>;
  expect(answers.node).toMatchObject({ code: 'DEPENDENCY_MISSING', message: expect.stringContaining('npm install onnxruntime-node@1.30.0') });
  expect(answers.hub).toMatchObject({ code: 'DEPENDENCY_MISSING', message: expect.stringContaining('npm install @huggingface/transformers@4.3.2') });
});

test("one Node process runs vmem/node's encoders and then vmem/hub's, installed from the tarball with their peers", () => {
  const folder = join(work, 'with-peers');
  // onnxruntime-node's own install script tries a CUDA download on a machine with nvcc unless told
  // not to: its documented switch, which a user on such a machine sets too.
  npmInstallInto(folder, [packedTarball(), 'onnxruntime-node@1.30.0', '@huggingface/transformers@4.3.2'], { ONNXRUNTIME_NODE_INSTALL_CUDA: 'skip' });
  // One onnxruntime-node for both: transformers.js 4 depends on the version vmem's peer names.
  expect(existsSync(join(folder, 'node_modules/@huggingface/transformers/node_modules/onnxruntime-node'))).toBe(false);
  const models = join(folder, 'hub-models');
  writeTinyBertModel(models, 'tiny-bert', 16);
  writeTinySiglipVisionModel(models, 'tiny-siglip', 12);

  const result = JSON.parse(
    runNode(
      folder,
      `import { readFileSync } from 'node:fs';
       import { createNodeEmbeddedEncoders, loadNodeWordVectors } from 'vmem/node';
       import { createHubImageEncoder, createHubTextEncoder } from 'vmem/hub';
       import { decodeImageNode } from 'vmem/node';
       const [models, photo] = process.argv.slice(2);
       const image = { bytes: new Uint8Array(readFileSync(photo)), mimeType: 'image/jpeg' };
       const embedded = createNodeEmbeddedEncoders();
       const [text] = await embedded.text.embed(['My cat Miso sleeps on the radiator']);
       const [picture] = await embedded.image.embed([image]);
       const words = await loadNodeWordVectors();
       const hubText = await createHubTextEncoder({ model: 'tiny-bert', localModelPath: models, allowRemote: false, dtype: 'fp32' });
       const hubImage = await createHubImageEncoder({ model: 'tiny-siglip', localModelPath: models, allowRemote: false, dtype: 'fp32', decoder: decodeImageNode });
       const [hubVector] = await hubText.embed(['the cat sat on the mat .']);
       const [hubPicture] = await hubImage.embed([image]);
       // The embedded encoders still run after transformers.js loaded its runtime.
       const [again] = await embedded.text.embed(['My cat Miso sleeps on the radiator']);
       console.log(JSON.stringify({ text: text.length, picture: picture.length, words: words.size, hubText: hubVector.length, hubImage: hubPicture.length, same: again.every((value, i) => value === text[i]) }));`,
      [models, join(FIXTURE_PHOTOS_DIR, 'sk_chelsea.jpg')],
    ),
  ) as Record<string, number | boolean>;
  expect(result).toEqual({ text: 512, picture: 1280, words: expect.any(Number), hubText: 16, hubImage: 12, same: true });
  expect(result.words).toBeGreaterThan(1000);
});

/** Installs `packages` into a new empty folder (its own package.json, so no `.npmrc` above it applies). */
function npmInstallInto(folder: string, packages: readonly string[], extraEnv: Record<string, string> = {}): void {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'vmem-node-consumer', private: true, type: 'module' }));
  npmInstall(folder, packages, userEnvironment(extraEnv));
}
