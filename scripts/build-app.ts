/**
 * Builds everything the browser product serves into `dist-app/`:
 *   1. copies the sample photos into `public/`;
 *   2. the demo app (`vite.config.ts`): index.html, the drop-in example page, the bench page; the
 *      encoder worker and its model files come in through `vmem/browser`, as in any Vite app;
 *   3. the drop-in: `dropin/vmem.js` (IIFE, global `vmem`), `dropin/vmem.mjs` (ES module),
 *      `dropin/pouchdb.mjs` (what `memory.sync` loads) and the package's worker folder beside them
 *      (`encoder.worker.js`, `chunks/`, `models/`), so the folder deploys alone;
 *   4. `precache.json` for the offline service worker;
 *   5. brotli and gzip copies of what compresses (`compress.ts`), which `npm start` serves.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build, type InlineConfig } from 'vite';
import { APP_OUT_DIR, VMEM_ENTRY_ALIASES } from '../vite.config.js';
import { copyAssets } from './copy-assets.js';
import { copyLicences } from './convert-models.js';
import { precompress } from './compress.js';
import { writePrecache } from './precache.js';
import { buildWorkerRuntime } from './worker-runtime.js';

const root = resolve(import.meta.dirname, '..');
const dropinDir = resolve(root, APP_OUT_DIR, 'dropin');

/**
 * One library build of the drop-in script into `dist-app/dropin/`, without `public/` (that is the
 * app's). The worker comes from the folder beside the script, so `vmem/browser`'s bundled worker is
 * swapped for a stand-in and not bundled a second time.
 */
function dropinBuild(format: 'es' | 'iife', fileName: string): InlineConfig {
  return {
    root,
    configFile: false,
    publicDir: false,
    logLevel: 'warn',
    resolve: {
      alias: [
        ...VMEM_ENTRY_ALIASES,
        { find: /^\.\/worker\/bundled-worker\.js$/, replacement: resolve(root, 'app/dropin-worker.ts') },
        // PouchDB would more than double vmem.js: it is a module of its own, loaded on the first `memory.sync`.
        { find: /^\.\/pouch-modules\.js$/, replacement: resolve(root, 'app/dropin-pouch-modules.ts') },
      ],
    },
    // An IIFE has no import.meta; the drop-in finds its folder from document.currentScript instead.
    ...(format === 'iife' ? { define: { 'import.meta.url': 'undefined' } } : {}),
    build: {
      outDir: dropinDir,
      emptyOutDir: false,
      target: 'es2022',
      chunkSizeWarningLimit: 40_000,
      lib: { entry: resolve(root, 'app/dropin.ts'), formats: [format], name: 'vmem', fileName: () => fileName },
      // ASCII only: a classic script is decoded in the host page's charset, and a page that declares
      // none reads it as windows-1252, where any other byte would garble a string or a regex.
      // One file per format, as the IIFE must be: sync's code comes inline (PouchDB stays out, in pouchdb.mjs).
      rolldownOptions: { output: { codeSplitting: false, minify: { compress: true, mangle: true, codegen: { removeWhitespace: true, asciiOnly: true } } } },
    },
  };
}

/** `dropin/pouchdb.mjs`: PouchDB for the drop-in's `memory.sync`, fetched on its first call (app/dropin-pouch-modules.ts). */
function dropinPouchBuild(): InlineConfig {
  return {
    root,
    configFile: false,
    publicDir: false,
    logLevel: 'warn',
    build: {
      outDir: dropinDir,
      emptyOutDir: false,
      target: 'es2022',
      lib: { entry: resolve(root, 'app/dropin-pouchdb.ts'), formats: ['es'], fileName: () => 'pouchdb.mjs' },
      rolldownOptions: { output: { minify: true } },
    },
  };
}

const started = performance.now();
await copyAssets();
await build({ root, configFile: resolve(root, 'vite.config.ts'), logLevel: 'warn' });
await buildWorkerRuntime(dropinDir);
await build(dropinBuild('iife', 'vmem.js'));
await build(dropinBuild('es', 'vmem.mjs'));
await build(dropinPouchBuild());
for (const script of ['vmem.js', 'vmem.mjs']) {
  const bytes = readFileSync(resolve(dropinDir, script));
  const at = bytes.findIndex((byte) => byte > 0x7f);
  if (at >= 0) throw new Error(`build-app: dropin/${script} has a non-ASCII byte at ${at}: …${bytes.subarray(Math.max(0, at - 60), at + 20).toString()}…`);
}
await copyLicences(resolve(dropinDir, 'models'));
const precache = await writePrecache(resolve(root, APP_OUT_DIR));
const compressed = await precompress(resolve(root, APP_OUT_DIR));
console.log(
  `build-app: ${APP_OUT_DIR}/ ready in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
    `offline precache ${precache.files} files, ${(precache.bytes / 1e6).toFixed(1)} MB; ` +
    `${compressed.files} brotli/gzip copies (brotli saves ${(compressed.savedBytes / 1e6).toFixed(1)} MB)`,
);
