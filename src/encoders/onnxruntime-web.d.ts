/**
 * Types for `onnxruntime-web` as vmem uses it. Under Node's module resolution the package's `node`
 * export has no types (its `types.d.ts` is outside the exports map), so the parts vmem uses are
 * declared here, as the structural subset `OrtRuntime` describes, plus the WASM settings.
 */
declare module 'onnxruntime-web' {
  export const InferenceSession: import('./ort-runtime.js').OrtRuntime['InferenceSession'];
  export const Tensor: import('./ort-runtime.js').OrtRuntime['Tensor'];
  /** onnxruntime-web's settings for this realm; read when its WASM backend first starts. */
  export const env: {
    readonly wasm: {
      /** Threads (cross-origin-isolated pages only). */
      numThreads?: number;
      /** Where the `.wasm` files are; unset means next to the bundled script. */
      wasmPaths?: string | Record<string, string>;
      /** Run the WASM backend in a proxy worker. */
      proxy?: boolean;
    };
  };
}

/** onnxruntime-web's WASM-only build (a smaller binary, no WebGPU), with the same API. */
declare module 'onnxruntime-web/wasm' {
  export * from 'onnxruntime-web';
}
