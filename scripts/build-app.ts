/**
 * Builds everything the browser product serves into `dist-app/`:
 *   1. copies model files, WASM and sample photos into `public/`;
 *   2. the demo app (`vite.config.ts`): index.html, the drop-in example page, the encoder worker;
 *   3. the drop-in: `dropin/vmem.js` (IIFE, global `vmem`), `dropin/vmem.mjs` (ES module),
 *      `dropin/encoder.worker.js`, and its own copy of `models/` so the folder deploys alone;
 *   4. `precache.json` for the offline service worker.
 */
import { cp } from 'node:fs/promises';
import { resolve } from 'node:path';
import { build, type InlineConfig } from 'vite';
import { APP_OUT_DIR, smallPthreadPool, VMEM_ENTRY_ALIASES } from '../vite.config.js';
import { copyAssets } from './copy-assets.js';
import { writePrecache } from './precache.js';

const root = resolve(import.meta.dirname, '..');
const dropinDir = resolve(root, APP_OUT_DIR, 'dropin');

/** One library build into `dist-app/dropin/`, without `public/` (that is the app's). */
function dropinBuild(entry: string, format: 'es' | 'iife', fileName: string): InlineConfig {
  return {
    root,
    configFile: false,
    publicDir: false,
    logLevel: 'warn',
    plugins: [smallPthreadPool()],
    resolve: { alias: VMEM_ENTRY_ALIASES },
    worker: { format: 'es', plugins: () => [smallPthreadPool()] },
    // An IIFE has no import.meta; the drop-in finds its folder from document.currentScript instead.
    ...(format === 'iife' ? { define: { 'import.meta.url': 'undefined' } } : {}),
    build: {
      outDir: dropinDir,
      emptyOutDir: false,
      target: 'es2022',
      chunkSizeWarningLimit: 40_000,
      lib: { entry: resolve(root, entry), formats: [format], name: 'vmem', fileName: () => fileName },
    },
  };
}

const started = performance.now();
await copyAssets();
await build({ root, configFile: resolve(root, 'vite.config.ts'), logLevel: 'warn' });
await build(dropinBuild('src/worker/encoder.worker.ts', 'es', 'encoder.worker.js'));
await build(dropinBuild('app/dropin.ts', 'iife', 'vmem.js'));
await build(dropinBuild('app/dropin.ts', 'es', 'vmem.mjs'));
await cp(resolve(root, 'public/models'), resolve(dropinDir, 'models'), { recursive: true });
const precache = await writePrecache(resolve(root, APP_OUT_DIR));
console.log(
  `build-app: ${APP_OUT_DIR}/ ready in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
    `offline precache ${precache.files} files, ${(precache.bytes / 1e6).toFixed(1)} MB`,
);
