/**
 * Test-only (and `bench:describe`'s reference arm): TF.js, which vmem no longer runs, started the
 * way vmem once started it, to compute the numbers the converted ONNX models must reproduce. Stock
 * TF.js 4.22, WASM backend, one thread: nothing of TF.js is patched. TF.js is a devDependency.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { VmemError } from '../../errors.js';

/** The three binaries of `@tensorflow/tfjs-backend-wasm`. */
export type WasmBinaryName = 'tfjs-backend-wasm.wasm' | 'tfjs-backend-wasm-simd.wasm' | 'tfjs-backend-wasm-threaded-simd.wasm';

/**
 * Where the TF.js WASM binaries are: a folder prefix ending in `/` (a URL in browsers, a file path in
 * Node), or one URL per binary. Never left to TF.js's default, which is a CDN.
 * @example '/assets/tfjs-wasm/'
 */
export type WasmPaths = string | Readonly<Record<WasmBinaryName, string>>;

/** Folder of the TF.js WASM binaries in node_modules, ending in `/` as `setWasmPaths` wants. */
export function nodeTfjsWasmDir(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/';
}

/** Options of `ensureTfjsWasm`. */
export interface TfjsWasmOptions {
  /** Where the `.wasm` files are served or stored. */
  readonly wasmPaths: WasmPaths;
}

// TF.js has one engine per JS realm, so the backend is started once per realm. The first caller's
// paths win; a failed start is forgotten and retried.
let starting: Promise<void> | undefined;

/**
 * Makes TF.js run on its single-threaded WASM backend, once per realm; later calls wait for the same
 * start. TF.js's backend is per realm: call this from vmem's worker or a Node process, not from a
 * page whose own TF.js models should keep their backend. Rejects with `MODEL_LOAD_FAILED` when the
 * binaries cannot be loaded from `wasmPaths`.
 * @example await ensureTfjsWasm({ wasmPaths: '/tfjs-wasm/' })
 */
export function ensureTfjsWasm(options: TfjsWasmOptions): Promise<void> {
  if (starting === undefined) {
    const attempt = startWasmBackend(options).catch((error: unknown) => {
      if (starting === attempt) starting = undefined;
      throw error;
    });
    starting = attempt;
  }
  return starting;
}

async function startWasmBackend(options: TfjsWasmOptions): Promise<void> {
  const where = typeof options.wasmPaths === 'string' ? options.wasmPaths : Object.values(options.wasmPaths).join(', ');
  const restoreProcessHandlers = keepProcessHandlers();
  try {
    // The threaded binary would start pthread workers from a script a bundled worker cannot
    // rebuild; the detector runs on one thread.
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    setWasmPaths(options.wasmPaths as never);
    const started = await tf.setBackend('wasm');
    if (!started) throw new Error('tf.setBackend("wasm") returned false');
    await tf.ready();
  } catch (cause) {
    throw new VmemError(
      'MODEL_LOAD_FAILED',
      `The TF.js WASM backend did not start from ${where}: serve tfjs-backend-wasm*.wasm there (from node_modules/@tensorflow/tfjs-backend-wasm/dist). ${String(cause)}`,
      { cause },
    );
  } finally {
    restoreProcessHandlers();
  }
}

type ProcessLike = {
  listeners(event: string): unknown[];
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
};

/**
 * The WASM module, when started in Node, adds process handlers that rethrow every unhandled rejection
 * and uncaught exception, which would crash a host (or test runner) that handles them itself.
 * Returns a function that removes the handlers added since the call.
 */
function keepProcessHandlers(): () => void {
  const nodeProcess = (globalThis as { process?: ProcessLike }).process;
  if (nodeProcess === undefined || typeof nodeProcess.listeners !== 'function') return () => undefined;
  const events = ['uncaughtException', 'unhandledRejection'] as const;
  const before = new Map(events.map((event) => [event, new Set(nodeProcess.listeners(event))]));
  return () => {
    for (const event of events) {
      for (const listener of nodeProcess.listeners(event)) {
        if (!before.get(event)!.has(listener)) nodeProcess.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
  };
}
