/**
 * The describer's files, each named by one literal `new URL('…', import.meta.url)`, as
 * `model-files.ts` names the encoders' (a bundler copies and renames each one; nothing here depends
 * on the names it picks). Tesseract gets exact file URLs, never a folder to look names up in.
 */

/** Where each of the describer's files is served from. */
export interface DescriberFiles {
  /** CenterNet converted to ONNX (`centernet.onnx`, written by `scripts/convert-models.ts`). */
  readonly centerNetModel: string;
  /** tesseract.js's worker script. */
  readonly tesseractWorker: string;
  /**
   * Tesseract's LSTM-only core with SIMD, its binary inside (`models/tesseract-core.js`, see
   * `tesseract-core-epilogue.js`). The one core shipped: the encoders' onnxruntime-web binary needs
   * WASM SIMD too, so a browser without it runs neither.
   */
  readonly tesseractCore: string;
  /** Tesseract's English `best_int` model, gzipped. */
  readonly tesseractEnglish: string;
}

/** The served address of every describer file. */
export function describerFiles(): DescriberFiles {
  // One literal per file: a bundler only follows `new URL` with a string literal.
  return {
    centerNetModel: new URL('../../models/centernet.onnx', import.meta.url).href,
    tesseractWorker: new URL('tesseract.js/dist/worker.min.js', import.meta.url).href,
    tesseractCore: new URL('../../models/tesseract-core.js', import.meta.url).href,
    tesseractEnglish: new URL('../../models/eng.traineddata.gz', import.meta.url).href,
  };
}
