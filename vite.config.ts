/**
 * The demo app build (`dist-app/`): `index.html` plus the drop-in example page, module workers,
 * and the cross-origin isolation headers threaded WASM needs. The drop-in script itself is built by
 * `scripts/build-app.ts`.
 */
import { resolve } from 'node:path';
import { defineConfig, type Connect, type Plugin, type Rolldown } from 'vite';
import { compressedFiles } from './scripts/serve-compressed.js';

/**
 * The package's entries by name, resolved to their sources: the demo, the drop-in and the bench page
 * import `vmem` and `vmem/browser` exactly as an app that installed the package would. Kept in step
 * with `paths` in tsconfig.json and `exports` in package.json.
 */
export const VMEM_ENTRY_ALIASES = [
  { find: /^vmem$/, replacement: resolve(import.meta.dirname, 'src/index.ts') },
  { find: /^vmem\/(browser|node|hub|web-llm|tools|video|internal|ai-sdk|langchain)$/, replacement: resolve(import.meta.dirname, 'src/$1.ts') },
];

/**
 * One onnxruntime-web in every build: transformers.js (the hub encoders) imports its WebGPU build,
 * whose binary is another 27 MB; it runs on the full build the embedded encoders' WebGPU path loads.
 */
export const ONE_ONNX_RUNTIME = {
  alias: [{ find: /^onnxruntime-web\/webgpu$/, replacement: 'onnxruntime-web' }],
  dedupe: ['onnxruntime-web'],
};

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
 * Chunks of the optional runtimes named for what they are (WebLLM, transformers.js for the hub
 * encoders, onnxruntime-web's full build for WebGPU), so the offline precache leaves them to first use.
 */
const OPTIONAL_RUNTIMES: readonly [RegExp, string][] = [
  [/@mlc-ai[\\/]web-llm/, 'web-llm'],
  [/@huggingface[\\/]transformers/, 'hub'],
  [/onnxruntime-web[\\/]dist[\\/]ort\.bundle\.min/, 'ort-full'],
];
function chunkFileNames(chunk: Rolldown.PreRenderedChunk): string {
  const ids = [chunk.facadeModuleId ?? '', ...chunk.moduleIds];
  const runtime = OPTIONAL_RUNTIMES.find(([pattern]) => ids.some((id) => pattern.test(id)));
  return `assets/${runtime ? runtime[1] : '[name]'}-[hash].js`;
}

/**
 * The demo's Content-Security-Policy (docs/security.md explains each directive). Script runs only
 * from the app's own files, so a hostile file that reaches a `blob:` URL of another type (a document
 * inherits its creator's policy) still runs nothing. WebAssembly needs `'wasm-unsafe-eval'`; the LLM
 * settings may name any https endpoint, or one on this machine over http.
 */
export const DEMO_CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self' https: http://localhost:* http://127.0.0.1:*",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "style-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Sends `DEMO_CSP` with every response of the built demo (`vite preview`, so `npm start`), except the
 * drop-in pages, which stand for another site with its own policy. The dev server goes without it:
 * Vite's hot reload injects inline styles.
 */
function contentSecurityPolicy(): Plugin {
  const middleware: Connect.NextHandleFunction = (request, response, next) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (!NOT_ISOLATED.some((pattern) => pattern.test(path))) response.setHeader('Content-Security-Policy', DEMO_CSP);
    next();
  };
  return { name: 'vmem:content-security-policy', configurePreviewServer: (server) => void server.middlewares.use(middleware) };
}

export default defineConfig({
  plugins: [isolationHeaders(), contentSecurityPolicy(), compressedFiles()],
  resolve: { alias: [...VMEM_ENTRY_ALIASES, ...ONE_ONNX_RUNTIME.alias], dedupe: ONE_ONNX_RUNTIME.dedupe },
  worker: { format: 'es', rolldownOptions: { output: { chunkFileNames } } },
  // transformers.js and onnxruntime-web are large and already optimised; pre-bundling them only slows `vite dev`.
  optimizeDeps: { exclude: ['@huggingface/transformers', 'onnxruntime-web'] },
  server: { port: 4180, strictPort: true },
  preview: { port: 4173, strictPort: true },
  build: {
    outDir: APP_OUT_DIR,
    emptyOutDir: true,
    target: 'es2022',
    // onnxruntime-web's bundled builds make chunks large by nature.
    chunkSizeWarningLimit: 40_000,
    rolldownOptions: {
      input: {
        main: resolve(import.meta.dirname, 'index.html'),
        dropinExample: resolve(import.meta.dirname, 'dropin-example.html'),
        bench: resolve(import.meta.dirname, 'bench.html'),
      },
      output: { chunkFileNames },
    },
  },
});
