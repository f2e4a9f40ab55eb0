/*
 * The end of `models/tesseract-core.js`, the core script tesseract.js's worker imports (its
 * `corePath`). `scripts/convert-models.ts` writes that file as tesseract.js-core's
 * `tesseract-core-simd-lstm.js`, which defines `TesseractCore`, then
 *   TesseractCore = <this function>(TesseractCore, '<its .wasm in hex>');
 * so the core hands Emscripten its binary (`wasmBinary`) instead of letting it fetch one.
 *
 * Why hex: tesseract.js-core's own one-file core, `tesseract-core-simd-lstm.wasm.js`, carries the
 * binary in base64, which compresses badly (1.44 MB gzipped, 1.10 MB brotli); hex keeps the binary's
 * bytes aligned, so it compresses nearly as well as the binary (1.19 and 0.88 MB, the binary alone
 * 1.06 and 0.82). Why not the binary as its own file: Emscripten looks for it beside the worker
 * script under its original name, which a bundler renames, and its address cannot be handed over
 * reliably: tesseract.js passes the core no options, and the worker's own URL loses any query or
 * fragment when a service worker serves it from a cache.
 *
 * A plain script in ASCII, not a module.
 */
(function (createCore, hex) {
  'use strict';
  var binary;
  return function (options) {
    if (binary === undefined) {
      binary = new Uint8Array(hex.length / 2);
      for (var i = 0; i < binary.length; i++) binary[i] = parseInt(hex.substr(i * 2, 2), 16);
    }
    return createCore(Object.assign({}, options, { wasmBinary: binary }));
  };
});
