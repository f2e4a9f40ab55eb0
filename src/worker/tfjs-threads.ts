/**
 * Lets TF.js's threaded WASM run inside the bundled encoder worker.
 *
 * TF.js starts each pthread worker from a blob holding `var WasmBackendModuleThreadedSimd = ` plus
 * the factory's `toString()`. Once bundled and minified, that function's text refers to variables of
 * its enclosing (CommonJS wrapper) scope, so every pthread dies with "ReferenceError: e is not
 * defined". The package's own source of that file is self-contained; handing TF.js that text instead
 * makes the pthreads start. The main-thread side keeps running the bundled copy of the same code.
 */
import threadedFactory from '@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-threaded-simd.js';
import threadedSource from '@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-threaded-simd.js?raw';

const DECLARATION = /^\s*var\s+WasmBackendModuleThreadedSimd\s*=\s*/;

/**
 * Makes TF.js build its pthread script from the package's unminified source. Call before the WASM
 * backend starts. Returns false (and changes nothing) when that source is not in the expected shape,
 * so the caller can stay single-threaded.
 */
export function patchThreadedFactorySource(factory: unknown = threadedFactory, source: string = threadedSource): boolean {
  const target = (factory as { default?: unknown }).default ?? factory;
  if (typeof target !== 'function' || !DECLARATION.test(source)) return false;
  // TF.js prepends the declaration itself; the rest is the factory expression (an IIFE) and a
  // CommonJS/AMD export tail that does nothing inside a classic worker.
  const expression = source.replace(DECLARATION, '');
  Object.defineProperty(target, 'toString', { value: () => expression, configurable: true });
  return true;
}

/** True when this realm may run threaded WASM (cross-origin isolated, so SharedArrayBuffer exists). */
export function canUseWasmThreads(): boolean {
  return (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
}
