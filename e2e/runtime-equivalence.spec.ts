/**
 * The converted ONNX models in Chromium compute what TF.js computes: onnxruntime-web on WASM (200
 * benchmark texts and every fixture photo) and on WebGPU (Chromium's SwiftShader adapter, which is
 * correct but ~100× slower, so a spread-out subset). Each vector must have cosine ≥ 0.9999 with the
 * TF.js vector of the same input, computed here in Node from the same npm packages.
 *
 * Self-contained: the page is bundled with Vite and served through Playwright routing (no port).
 */
import { expect, test, type Page } from '@playwright/test';
import { buildRuntimePage, RUNTIME_PAGE_ORIGIN, type RuntimePageHost } from './pages/runtime-page-host.js';
import type { PageRuntime } from './pages/runtime-page.js';
import { benchTexts } from '../src/encoders/testing/bench-texts.js';
import { tfjsPhotoVectors, tfjsTextVectors } from '../src/encoders/testing/tfjs-reference.js';
import { fixturePhotoNames } from '../src/testing/shared-data.js';
import { CHROMIUM_ARGS } from '../playwright.config.js';

test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu'] } });
test.setTimeout(600_000);

const EQUIVALENT = 0.9999;
const TEXTS = benchTexts(200);
const PHOTOS = fixturePhotoNames();
/** Every 10th text and every 6th photo: enough to catch a wrong kernel, in minutes on SwiftShader. */
const WEBGPU_TEXTS = TEXTS.filter((_, i) => i % 10 === 0);
const WEBGPU_PHOTOS = PHOTOS.filter((_, i) => i % 6 === 0);

let host: RuntimePageHost;
let referenceTexts: Float32Array[];
let referencePhotos: Float32Array[];

test.beforeAll(async () => {
  host = await buildRuntimePage();
  referenceTexts = await tfjsTextVectors(TEXTS);
  referencePhotos = await tfjsPhotoVectors(PHOTOS);
});
test.afterAll(() => host?.dispose());

test.beforeEach(async ({ page, context }) => {
  page.on('pageerror', (error) => console.error('page error:', error));
  await host.route(context);
  await page.goto(`${RUNTIME_PAGE_ORIGIN}/`);
  await page.waitForFunction(() => 'runtimePage' in window, null, { timeout: 120_000 });
});

/** The lowest cosine between each vector the page computed and its TF.js reference. */
function lowestCosine(reference: readonly Float32Array[], vectors: readonly number[][]): number {
  expect(vectors).toHaveLength(reference.length);
  return Math.min(...vectors.map((vector, i) => vector.reduce((sum, value, k) => sum + value * reference[i]![k]!, 0)));
}

async function checkRuntime(page: Page, runtime: PageRuntime, texts: readonly string[], photos: readonly string[]) {
  await page.evaluate((which) => window.runtimePage.load(which), runtime);
  const textVectors = await page.evaluate(([which, batch]) => window.runtimePage.embedTexts(which, batch), [runtime, texts] as const);
  // Node's pixels: the reference was decoded in Node, and the browser's JPEG decoder differs.
  const photoVectors = await page.evaluate(([which, names]) => window.runtimePage.embedPhotos(which, names, 'node'), [runtime, photos] as const);
  const text = lowestCosine(texts.map((t) => referenceTexts[TEXTS.indexOf(t)]!), textVectors);
  const image = lowestCosine(photos.map((p) => referencePhotos[PHOTOS.indexOf(p)]!), photoVectors);
  const description = `text ${text.toFixed(7)} (${texts.length} texts), image ${image.toFixed(7)} (${photos.length} photos)`;
  test.info().annotations.push({ type: `${runtime} lowest cosine to TF.js`, description });
  console.log(`${runtime}: lowest cosine to TF.js: ${description}`);
  expect(text).toBeGreaterThanOrEqual(EQUIVALENT);
  expect(image).toBeGreaterThanOrEqual(EQUIVALENT);
}

test('onnxruntime-web on WASM matches TF.js on 200 benchmark texts and every fixture photo (fp32)', async ({ page }) => {
  await checkRuntime(page, 'wasm-fp32', TEXTS, PHOTOS);
});

test('onnxruntime-web on WebGPU (SwiftShader) matches TF.js (fp32)', async ({ page }) => {
  const adapter = await page.evaluate(async () => (await navigator.gpu?.requestAdapter()) !== null);
  expect(adapter, 'Chromium offered no WebGPU adapter').toBe(true);
  await checkRuntime(page, 'webgpu-fp32', WEBGPU_TEXTS, WEBGPU_PHOTOS);
});
