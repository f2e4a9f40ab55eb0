/**
 * The encoder worker as it ships: `encoder.worker.js` and the model files (`models/`), bundled once
 * so that the worker has no bare imports and no files outside its folder. The package ships it as `dist/worker/`; the
 * drop-in ships the same folder. Every model file stays named by `new URL('models/…',
 * import.meta.url)`, so an app's bundler can copy and rename it again, or the folder can be served
 * as it is (`baseUrl`).
 */
import { resolve } from 'node:path';
import { build, type InlineConfig } from 'vite';
import { VMEM_ENTRY_ALIASES } from '../vite.config.js';

const root = resolve(import.meta.dirname, '..');

/** Name of the worker entry inside the folder; `src/worker/bundled-worker.ts` points at it. */
export const WORKER_ENTRY = 'encoder.worker.js';

function runtimeConfig(outDir: string): InlineConfig {
  return {
    root,
    configFile: false,
    publicDir: false,
    logLevel: 'warn',
    // Relative URLs: the folder works wherever it is served from.
    base: './',
    resolve: { alias: VMEM_ENTRY_ALIASES },
    worker: { format: 'es' },
    build: {
      outDir,
      emptyOutDir: false,
      target: 'es2022',
      // Model files stay files, whatever their size: a data: URL of 28 MB would be parsed as code.
      assetsInlineLimit: 0,
      chunkSizeWarningLimit: 40_000,
      modulePreload: false,
      copyPublicDir: false,
      rolldownOptions: {
        input: resolve(root, 'src/worker/encoder.worker.ts'),
        preserveEntrySignatures: false,
        output: {
          format: 'es',
          entryFileNames: WORKER_ENTRY,
          // One module, no chunks: a chunk that imports the entry back would, under a dev server
          // that adds version queries (Vite), load a second copy of onnxruntime-web next to the worker's.
          // Default Vite apps (worker format 'iife') inline them anyway.
          codeSplitting: false,
          assetFileNames: 'models/[name][extname]',
        },
      },
    },
  };
}

/** Builds the worker folder into `outDir` (which other builds may share: it is not emptied). */
export async function buildWorkerRuntime(outDir: string): Promise<void> {
  await build(runtimeConfig(outDir));
}
