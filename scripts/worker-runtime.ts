/**
 * The encoder worker as it ships: `encoder.worker.js` and the model files (`models/`), bundled once
 * so that the worker has no bare imports and no files outside its folder. The package ships it as `dist/worker/`; the
 * drop-in ships the same folder. Every model file stays named by `new URL('models/…',
 * import.meta.url)`, so an app's bundler can copy and rename it again, or the folder can be served
 * as it is (`baseUrl`).
 */
import { posix, resolve } from 'node:path';
import { build, type InlineConfig, type Plugin } from 'vite';
import { ONE_ONNX_RUNTIME, VMEM_ENTRY_ALIASES } from '../vite.config.js';

const root = resolve(import.meta.dirname, '..');

/** Name of the worker entry inside the folder; `src/worker/bundled-worker.ts` points at it. */
export const WORKER_ENTRY = 'encoder.worker.js';

const ENTRY_SOURCE = 'src/worker/encoder.worker.ts';
/** The modules only WebGPU or the hub encoders load. */
const LAZY_MODULES = /@huggingface[\\/]transformers|onnxruntime-web[\\/]dist[\\/]ort\.bundle\.min|src[\\/]encoders[\\/]hub\.ts/;

/** onnxruntime-web's full-build binary: the page names it (`webgpuWasm`); the folder never ships it. */
const FULL_BUILD_WASM = 'ort-wasm-simd-threaded.jsep.wasm';

/** `new URL('<file>', import.meta.url)`: how Vite and webpack 5 find a file to copy and rename. */
const FILE_REFERENCE = /new URL\((["'`])([^"'`]+)\1,\s*import\.meta\.url\)/g;

/**
 * Makes the worker a file other bundlers take as it is. An app's Vite or webpack 5 re-bundles it: it
 * follows every `new URL('<file>', import.meta.url)`, so those must name files in the folder, and it
 * rewrites any other `import.meta` its own way (Vite's default `iife` workers empty it, webpack
 * hard-codes the file's path at build time). So the worker keeps `import.meta.url` only in its own
 * file references; everywhere else it reads its address at run time, `self.location.href`.
 *   - onnxruntime-web names its binaries and its own script as defaults for when no `wasmPaths` is
 *     set. The worker always sets one, so those references are made opaque: the full build's binary
 *     is not copied into the folder, and nobody warns about a script the folder lacks.
 *   - Vite's helper for relative dynamic imports probes `import.meta.resolve`; the worker has no
 *     chunks to resolve, so the probe is dropped.
 *   - A dynamic `import()` of a computed address is marked for bundlers to leave alone.
 * The build fails if onnxruntime-web's code no longer has the references rewritten here (an upgrade
 * changed it), or if any other `import.meta` is left.
 */
function bundlerNeutralWorker(): Plugin {
  return {
    name: 'vmem:bundler-neutral-worker',
    enforce: 'pre',
    transform(code, id) {
      if (!/[\\/]onnxruntime-web[\\/]dist[\\/]ort\.(wasm\.)?bundle\.min\.mjs$/.test(id)) return null;
      let rewrites = 0;
      // `new URL(…)`, or `new l(…)` after `let l = URL`: any file name paired with the module's own URL.
      const out = code.replace(/(["'`])([\w.-]+\.(?:mjs|wasm))\1,\s*import\.meta\.url/g, (_, quote: string, file: string) => {
        rewrites += 1;
        return `${quote}${file}${quote},self.location.href`;
      });
      if (rewrites === 0) this.error(`${id}: no default file references found to neutralise; check the onnxruntime-web upgrade`);
      return { code: out, map: null };
    },
    generateBundle(_, bundle) {
      const assets = new Set(Object.values(bundle).filter((item) => item.type === 'asset').map((item) => item.fileName));
      if (assets.has(`models/${FULL_BUILD_WASM}`)) this.error(`${FULL_BUILD_WASM} was emitted; the folder ships the WASM-only binary alone`);
      for (const item of Object.values(bundle)) {
        if (item.type !== 'chunk') continue;
        const references: string[] = [];
        const unknown = new Set<string>();
        // Own file references are set aside, every other import.meta.url becomes the run-time address.
        let code = item.code.replace(FILE_REFERENCE, (whole, _quote: string, file: string) => {
          // Relative to the chunk, which may sit in `chunks/`.
          if (!assets.has(posix.normalize(posix.join(posix.dirname(item.fileName), file)))) unknown.add(file);
          references.push(whole);
          return `\0ref${references.length - 1}\0`;
        });
        if (unknown.size > 0) this.error(`${item.fileName} names files the folder lacks: ${[...unknown].join(', ')}`);
        code = code.replaceAll('import.meta.resolve', 'undefined').replaceAll('import.meta.url', 'self.location.href');
        // onnxruntime-web's loader of a glue script by address (unused: the glue is bundled): left to the
        // browser, so webpack does not try to bundle "an expression".
        code = code.replace(/\bimport\((?=[A-Za-z_$][\w$]*\))/g, 'import(/* webpackIgnore: true */ /* @vite-ignore */ ');
        const left = code.indexOf('import.meta');
        if (left >= 0) this.error(`${item.fileName}: an import.meta other bundlers would rewrite is left: …${code.slice(Math.max(0, left - 80), left + 60)}…`);
        item.code = code.replace(/\0ref(\d+)\0/g, (_, index: string) => references[Number(index)]!);
      }
    },
  };
}

function runtimeConfig(outDir: string): InlineConfig {
  return {
    root,
    configFile: false,
    publicDir: false,
    logLevel: 'warn',
    plugins: [bundlerNeutralWorker()],
    // Relative URLs: the folder works wherever it is served from.
    base: './',
    resolve: { alias: [...VMEM_ENTRY_ALIASES, ...ONE_ONNX_RUNTIME.alias], dedupe: ONE_ONNX_RUNTIME.dedupe },
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
        input: resolve(root, ENTRY_SOURCE),
        preserveEntrySignatures: false,
        output: {
          format: 'es',
          entryFileNames: WORKER_ENTRY,
          chunkFileNames: 'chunks/[name]-[hash].js',
          // What every start needs goes into one shared chunk; the optional runtimes (onnxruntime-web's
          // full build, transformers.js) stay chunks of their own, fetched only when WebGPU or the hub
          // encoders run. The entry is left alone in its file, so no chunk imports it back: under a dev
          // server that adds version queries (Vite), that would load a second copy of the worker.
          // Apps whose worker format is `iife` (Vite's default) inline every chunk anyway.
          codeSplitting: { groups: [{ name: 'shared', test: (id: string) => !LAZY_MODULES.test(id) && !id.endsWith(ENTRY_SOURCE) }] },
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
