/**
 * `npm run bench:runtimes`: throughput of the embedded encoders on ONNX Runtime, on the same inputs,
 * in one run, at batch sizes 1, 8 and 32, with USE-Lite in fp32 and int8:
 *   - Node: onnxruntime-node (as `vmem/node` runs it) and onnxruntime-web's WASM backend, one thread each;
 *   - browser (headless Chromium): onnxruntime-web WASM in one page.
 * The arms take turns (A B A B …, the first one rotating) so a machine shared with other work slows
 * them alike; each cell is the median of the repeats, and each ratio the median of the per-repeat
 * ratios to the group's first arm. In Node photos are decoded once up front (the pure-JS decoder
 * would dominate), so the image figures are resize + model; in the browser each call decodes, as
 * the app does (createImageBitmap, native). The comparison with the former TF.js path was made with
 * this script at the commit "bench:runtimes also measures USE-Lite with int8…" (see
 * docs/architecture.md, "Inference runtime").
 * Options: --repeats N (default 5), --only node|browser, --threads N (browser WASM threads, default 1).
 */
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { cpus } from 'node:os';
import { chromium } from 'playwright-core';
import { createMobileNetImageEncoder } from '../src/encoders/mobilenet.js';
import { readFileAsFetch } from '../src/encoders/node-assets.js';
import { convertMobileNet, convertUseLite, useLiteVocabSourcePath } from '../src/encoders/onnx/node-sources.js';
import { decodeImageNode } from '../src/encoders/node-decoder.js';
import type { ModelPrecision } from '../src/encoders/model-formats.js';
import type { OrtRuntime } from '../src/encoders/ort-runtime.js';
import { benchTexts } from '../src/encoders/testing/bench-texts.js';
import type { ImageDecoder, RgbaImage } from '../src/encoders/types.js';
import { createUseLiteTextEncoder } from '../src/encoders/use-lite.js';
import { fixturePhotoNames, readFixturePhoto } from '../src/testing/shared-data.js';
import { buildRuntimePage, RUNTIME_PAGE_ORIGIN } from '../e2e/pages/runtime-page-host.js';
import type { PageRuntime } from '../e2e/pages/runtime-page.js';
import { CHROMIUM_ARGS } from '../playwright.config.js';

const BATCH_SIZES = [1, 8, 32] as const;
const TEXTS = benchTexts(64);
const PHOTOS = fixturePhotoNames().slice(0, 32);

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? undefined : process.argv[at + 1];
};
const repeats = Number(option('repeats') ?? 5);
const only = option('only');
const browserThreads = Number(option('threads') ?? 1);

/** One runtime's way of timing a call pattern: milliseconds for all items in calls of `batchSize`. */
interface Arm {
  readonly name: string;
  readonly platform: 'Node' | 'browser';
  timeTexts(batchSize: number): Promise<number>;
  timePhotos(batchSize: number): Promise<number>;
}

interface Row {
  readonly platform: string;
  readonly encoder: string;
  readonly batch: number;
  readonly runtime: string;
  readonly perSecond: number;
  /** Median of per-repeat ratios to the group's first arm. */
  readonly ratio: number;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function compare(arms: readonly Arm[], encoder: 'USE-Lite' | 'MobileNetV2'): Promise<Row[]> {
  const items = encoder === 'USE-Lite' ? TEXTS.length : PHOTOS.length;
  const rows: Row[] = [];
  for (const batch of BATCH_SIZES) {
    const rates = arms.map(() => [] as number[]);
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (let k = 0; k < arms.length; k++) {
        const index = (k + repeat) % arms.length;
        const arm = arms[index]!;
        const ms = encoder === 'USE-Lite' ? await arm.timeTexts(batch) : await arm.timePhotos(batch);
        rates[index]!.push((items / ms) * 1000);
      }
    }
    arms.forEach((arm, index) => {
      const ratio = median(rates[index]!.map((rate, repeat) => rate / rates[0]![repeat]!));
      rows.push({ platform: arm.platform, encoder, batch, runtime: arm.name, perSecond: median(rates[index]!), ratio });
      console.error(`bench:runtimes: ${arm.platform} ${encoder} batch ${batch} ${arm.name}: ${median(rates[index]!).toFixed(1)}/s (×${ratio.toFixed(2)})`);
    });
  }
  return rows;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function inCalls<T>(items: readonly T[], batchSize: number, embed: (batch: readonly T[]) => Promise<unknown>): Promise<number> {
  return timed(async () => {
    for (let start = 0; start < items.length; start += batchSize) await embed(items.slice(start, start + batchSize));
  });
}

/** Decodes each photo once, then answers from memory: the decoder is not what is compared. */
function decodedOnce(): ImageDecoder {
  const decoded = new Map<Uint8Array, RgbaImage>();
  return async (bytes) => {
    let image = decoded.get(bytes);
    if (image === undefined) {
      image = await decodeImageNode(bytes);
      decoded.set(bytes, image);
    }
    return image;
  };
}

async function nodeRows(): Promise<Row[]> {
  ortWeb.env.wasm.numThreads = 1;
  const photos = PHOTOS.map((photo) => ({ bytes: readFixturePhoto(photo), mimeType: 'image/jpeg' }));
  const decoder = decodedOnce();
  const sessionOptions = { intraOpNumThreads: 1 };
  const textArm = (name: string, runtime: OrtRuntime, precision: ModelPrecision): Arm => {
    const text = createUseLiteTextEncoder({ runtime, model: () => convertUseLite(precision), precision, vocabUrl: useLiteVocabSourcePath(), fetch: readFileAsFetch, sessionOptions });
    return { name, platform: 'Node', timeTexts: (batch) => inCalls(TEXTS, batch, (texts) => text.embed(texts)), timePhotos: () => Promise.reject(new Error('text only')) };
  };
  const imageArm = (name: string, runtime: OrtRuntime): Arm => {
    const image = createMobileNetImageEncoder({ runtime, model: convertMobileNet, decoder, sessionOptions });
    return { name, platform: 'Node', timeTexts: () => Promise.reject(new Error('images only')), timePhotos: (batch) => inCalls(photos, batch, (images) => image.embed(images)) };
  };
  const textArms = [
    textArm('onnxruntime-node, fp32', ortNode, 'fp32'),
    textArm('onnxruntime-node, int8', ortNode, 'int8'),
    textArm('onnxruntime-web WASM, fp32', ortWeb, 'fp32'),
    textArm('onnxruntime-web WASM, int8', ortWeb, 'int8'),
  ];
  const imageArms = [imageArm('onnxruntime-node', ortNode), imageArm('onnxruntime-web WASM', ortWeb)];
  // Warm-up: loads every model and decodes every photo once.
  for (const arm of textArms) await arm.timeTexts(32);
  for (const arm of imageArms) await arm.timePhotos(32);
  return [...(await compare(textArms, 'USE-Lite')), ...(await compare(imageArms, 'MobileNetV2'))];
}

let browserVersion = '';

async function browserRows(): Promise<Row[]> {
  const host = await buildRuntimePage();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  browserVersion = browser.version();
  try {
    const context = await browser.newContext();
    await host.route(context);
    const page = await context.newPage();
    await page.goto(`${RUNTIME_PAGE_ORIGIN}/?threads=${browserThreads}`);
    await page.waitForFunction(() => 'runtimePage' in window, null, { timeout: 120_000 });
    const arm = async (runtime: PageRuntime, name: string): Promise<Arm> => {
      await page.evaluate((which) => window.runtimePage.load(which), runtime);
      const result: Arm = {
        name,
        platform: 'browser',
        timeTexts: (batch) => page.evaluate(([which, texts, size]) => window.runtimePage.timeTexts(which, texts, size), [runtime, TEXTS, batch] as const),
        timePhotos: (batch) => page.evaluate(([which, names, size]) => window.runtimePage.timePhotos(which, names, size), [runtime, PHOTOS, batch] as const),
      };
      await result.timeTexts(32);
      await result.timePhotos(32);
      return result;
    };
    const threads = `${browserThreads} thread${browserThreads === 1 ? '' : 's'}`;
    const arms = [await arm('wasm-fp32', `onnxruntime-web WASM, fp32 (${threads})`), await arm('wasm-int8', `onnxruntime-web WASM, int8 (${threads})`)];
    // MobileNetV2 is fp32 in both arms: one is enough.
    return [...(await compare(arms, 'USE-Lite')), ...(await compare(arms.slice(0, 1), 'MobileNetV2'))];
  } finally {
    await browser.close();
    host.dispose();
  }
}

const rows = [...(only === 'browser' ? [] : await nodeRows()), ...(only === 'node' ? [] : await browserRows())];
const chromiumVersion = browserVersion === '' ? '' : `, headless Chromium ${browserVersion}`;
console.log(`\nvmem inference runtimes — ${cpus().length} cores, Node ${process.version}${chromiumVersion}, median of ${repeats} paired repeats; ${TEXTS.length} texts, ${PHOTOS.length} photos\n`);
console.log('| platform | encoder | batch | runtime | items/s | × first of group |\n| --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(`| ${row.platform} | ${row.encoder} | ${row.batch} | ${row.runtime} | ${row.perSecond.toFixed(1)} | ${row.ratio.toFixed(2)} |`);
