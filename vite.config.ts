/**
 * The demo app build (`dist-app/`): `index.html` plus the drop-in example page, module workers,
 * and the cross-origin isolation headers threaded WASM needs. The drop-in script itself is built by
 * `scripts/build-app.ts`.
 */
import { createReadStream } from 'node:fs';
import { resolve, sep } from 'node:path';
import { defineConfig, type Connect, type Plugin } from 'vite';
import { MAX_WASM_THREADS } from './src/worker/protocol.js';

/**
 * The package's entries by name, resolved to their sources: the demo, the drop-in and the bench page
 * import `vmem` and `vmem/browser` exactly as an app that installed the package would. Kept in step
 * with `paths` in tsconfig.json and `exports` in package.json.
 */
export const VMEM_ENTRY_ALIASES = [
  { find: /^vmem$/, replacement: resolve(import.meta.dirname, 'src/index.ts') },
  { find: /^vmem\/(browser|node|hub|internal|ai-sdk|langchain)$/, replacement: resolve(import.meta.dirname, 'src/$1.ts') },
];

/** Where `vite build` writes the app, and where `vite preview` serves it from. */
export const APP_OUT_DIR = 'dist-app';

/** Pages served WITHOUT isolation headers: they stand for a third-party site embedding the drop-in. */
const NOT_ISOLATED = [/^\/dropin-example\.html/, /^\/dropin\//];

/**
 * Sets COOP/COEP (cross-origin isolation, so WASM may use threads) on every response except the
 * drop-in pages. Plain `server.headers` cannot exempt a path, hence a middleware.
 */
function isolationHeaders(): Plugin {
  const middleware: Connect.NextHandleFunction = (request, response, next) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (!NOT_ISOLATED.some((pattern) => pattern.test(path))) {
      response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      response.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    }
    // The service worker must never be served stale, or an old app shell lingers after a deploy.
    if (path === '/sw.js') response.setHeader('Cache-Control', 'no-cache');
    next();
  };
  return {
    name: 'vmem:isolation-headers',
    configureServer: (server) => void server.middlewares.use(middleware),
    configurePreviewServer: (server) => void server.middlewares.use(middleware),
  };
}

/**
 * `vite dev` takes a request for a file without an extension for a module and compiles it, which
 * fails for USE-Lite's weight shards (`group1-shard1of7`, named so by the model package). The dev
 * server serves them as bytes instead; builds are unaffected (the published worker names them `.bin`).
 */
function rawModelShards(): Plugin {
  return {
    name: 'vmem:raw-model-shards',
    configureServer: (server) =>
      void server.middlewares.use((request, response, next) => {
        const path = (request.url ?? '').split('?')[0] ?? '';
        const file = resolve(import.meta.dirname, `.${decodeURIComponent(path)}`);
        // Only the model packages' files, never a path that climbs out of node_modules.
        if (!/\/group1-shard\d+of\d+$/.test(path) || !file.startsWith(resolve(import.meta.dirname, 'node_modules') + sep)) return next();
        response.setHeader('Content-Type', 'application/octet-stream');
        createReadStream(file).on('error', next).pipe(response);
      }),
  };
}

/**
 * TF.js's threaded WASM starts a pool of 8 pthread workers before it runs anything, each loading
 * the runtime; on 2 busy cores that delayed model loading by seconds. The app never asks for more
 * than MAX_WASM_THREADS threads, so a pool that size is enough (a thread beyond it would still be
 * started on demand).
 */
export function smallPthreadPool(): Plugin {
  return {
    name: 'vmem:small-pthread-pool',
    transform(code, id) {
      if (!id.split('?')[0]!.endsWith('tfjs-backend-wasm-threaded-simd.js') || id.includes('?')) return null;
      const patched = code.replace('var pthreadPoolSize=8;', `var pthreadPoolSize=${MAX_WASM_THREADS};`);
      if (patched === code) this.warn('TF.js threaded WASM: pthread pool size not found; the pool stays at 8 workers');
      return { code: patched, map: null };
    },
  };
}

export default defineConfig({
  plugins: [isolationHeaders(), rawModelShards(), smallPthreadPool()],
  resolve: { alias: VMEM_ENTRY_ALIASES },
  // Worker bundles get their own plugin list.
  worker: { format: 'es', plugins: () => [smallPthreadPool()] },
  // tfjs and transformers.js are large and already optimised; pre-bundling them only slows `vite dev`.
  optimizeDeps: { exclude: ['@huggingface/transformers', 'onnxruntime-web'] },
  server: { port: 4180, strictPort: true },
  preview: { port: 4173, strictPort: true },
  build: {
    outDir: APP_OUT_DIR,
    emptyOutDir: true,
    target: 'es2022',
    // Model weights (nsfwjs ships them as JS) make chunks large by nature.
    chunkSizeWarningLimit: 40_000,
    rolldownOptions: {
      input: {
        main: resolve(import.meta.dirname, 'index.html'),
        dropinExample: resolve(import.meta.dirname, 'dropin-example.html'),
        bench: resolve(import.meta.dirname, 'bench.html'),
      },
    },
  },
});
