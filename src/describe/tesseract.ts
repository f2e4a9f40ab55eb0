/**
 * Readable text by OCR: Tesseract 5 (LSTM engine) compiled to WASM by tesseract.js, with the English
 * `best_int` model from `@tesseract.js-data/eng`. Every file comes from paths the caller gives (files
 * served by the app, or node_modules in Node): tesseract.js's defaults, a CDN, are never used, and
 * nothing is cached in IndexedDB or written to the working directory.
 */
import { VmemError, isVmemError } from '../errors.js';
import type { ProgressCallback } from '../progress.js';
import { createLazy } from '../util/lazy.js';
import { importPeer } from '../util/optional-peer.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { encodeBmp } from './bmp.js';
import { keptLines, type OcrBlock } from './ocr-words.js';
import type { ReadOptions, TextReader } from './types.js';

/** tesseract.js and the model it reads (part of the reader id). */
const ENGINE = 'tesseract-5-lstm-eng-best-int@tesseract.js-7.0.0';
const PROGRESS_ITEM = 'tesseract-eng';
/**
 * Tesseract's `thresholding_method` per lighting: 0 is Otsu, one global threshold (clean on screen
 * text, where Sauvola loses light-on-colour titles); 2 is Sauvola, a local threshold that copes with
 * light falling off across a photographed page.
 */
const THRESHOLDING: Readonly<Record<ReadOptions['lighting'], string>> = { even: '0', uneven: '2' };
/** tesseract.js's OEM.LSTM_ONLY. */
const LSTM_ONLY = 1;
/** Words Tesseract is less sure of than this (0–100) are noise: texture read as letters. */
const DEFAULT_MIN_WORD_CONFIDENCE = 60;

/** Options of `createTesseractTextReader`. */
export interface TesseractTextReaderOptions {
  /**
   * Folder holding `eng.traineddata.gz` (a URL in browsers, a path in Node): the `4.0.0_best_int`
   * folder of `@tesseract.js-data/eng`. Give this or `languageFileUrl`.
   * @example nodeTesseractLangPath()
   */
  readonly langPath?: string;
  /**
   * Browsers: the URL of `eng.traineddata.gz` itself, whatever a bundler named it.
   * @example new URL('@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz', import.meta.url).href
   */
  readonly languageFileUrl?: string;
  /**
   * The tesseract.js worker script. Browsers: the URL of `tesseract.js/dist/worker.min.js` as served.
   * @default Node: the script inside the installed package; browsers: none (required)
   */
  readonly workerPath?: string;
  /**
   * Browsers: the URL of a script that defines Tesseract's core, such as one of `tesseract.js-core`'s
   * `tesseract-core-*-lstm.wasm.js` files (the SIMD one where WASM SIMD runs).
   * @default Node: the installed package; browsers: none (required)
   */
  readonly corePath?: string;
  /** Least confidence (0–100) a word needs to be kept. Changes the reader id. @default 60 */
  readonly minWordConfidence?: number;
  /** Loading progress (`task: 'model'`, `item: 'tesseract-eng'`). */
  readonly onProgress?: ProgressCallback;
}

/** The slice of a tesseract.js worker this reader uses. */
interface OcrWorker {
  setParameters(params: Record<string, string>): Promise<unknown>;
  recognize(image: Uint8Array, options: object, output: object): Promise<{ data: { blocks: readonly OcrBlock[] | null } }>;
  terminate(): Promise<unknown>;
}

/**
 * A `TextReader` over tesseract.js. One OCR worker, started on first use; a read that passes its time
 * cap ends that worker (Tesseract cannot be interrupted) and the next read starts a fresh one.
 * @example
 * const reader = createTesseractTextReader({ langPath: nodeTesseractLangPath() });
 * const { text } = await reader.read(decodedPixels, { timeoutMs: 6000, lighting: 'uneven' });
 */
export function createTesseractTextReader(options: TesseractTextReaderOptions): TextReader & { load(): Promise<void>; dispose(): Promise<void> } {
  if ((options.langPath === undefined) === (options.languageFileUrl === undefined)) {
    throw new VmemError('INVALID_INPUT', 'Give the Tesseract reader either langPath (a folder holding eng.traineddata.gz) or languageFileUrl (the file itself), not both.');
  }
  const minConfidence = options.minWordConfidence === undefined ? DEFAULT_MIN_WORD_CONFIDENCE : options.minWordConfidence;
  if (!(minConfidence >= 0 && minConfidence <= 100)) {
    throw new VmemError('INVALID_INPUT', `minWordConfidence must be between 0 and 100, got ${minConfidence}.`);
  }
  const queue = createSerialQueue();
  let disposed = false;
  const worker = createLazy(() => startWorker(options));
  const ensureOpen = (): void => {
    if (disposed) throw new VmemError('CLOSED', 'This Tesseract text reader was disposed; create a new one.');
  };
  const endWorker = async (): Promise<void> => {
    const running = worker.peek();
    worker.reset();
    await running?.worker.terminate();
  };

  return {
    id: `${ENGINE}/${minConfidence}`,
    async load() {
      ensureOpen();
      await worker.get();
    },
    read(image, { timeoutMs, lighting }) {
      return queue.run(async () => {
        ensureOpen();
        const ocr = await worker.get();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const expired = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeoutMs);
        });
        try {
          if (ocr.thresholding !== THRESHOLDING[lighting]) {
            await ocr.worker.setParameters({ thresholding_method: THRESHOLDING[lighting] });
            ocr.thresholding = THRESHOLDING[lighting];
          }
          const outcome = await Promise.race([ocr.worker.recognize(encodeBmp(image), {}, { text: false, blocks: true }), expired]);
          if (outcome === 'timeout') {
            await endWorker();
            return { text: '', timedOut: true };
          }
          return { text: keptLines(outcome.data.blocks ?? [], minConfidence).join('\n'), timedOut: false };
        } catch (cause) {
          // A worker that failed mid-read is not trusted with the next one.
          await endWorker();
          throw new VmemError('MODEL_LOAD_FAILED', `Tesseract could not read the picture: ${String((cause as Error)?.message ?? cause)}.`, { cause });
        } finally {
          clearTimeout(timer);
        }
      });
    },
    dispose() {
      return queue.run(async () => {
        disposed = true;
        await endWorker();
      });
    },
  };
}

/** A started worker and the thresholding it is set to. */
interface RunningWorker {
  readonly worker: OcrWorker;
  thresholding: string | undefined;
}

/**
 * The `langPath` tesseract.js is given. It always fetches `<langPath>/eng.traineddata.gz`; after the
 * file's own URL and a `?`, that suffix becomes a query, which static servers (and the app's service
 * worker) ignore, so the file may have any name.
 */
function languagePath(options: TesseractTextReaderOptions): string {
  return options.langPath ?? `${options.languageFileUrl}?`;
}

async function startWorker(options: TesseractTextReaderOptions): Promise<RunningWorker> {
  const item = { task: 'model', item: PROGRESS_ITEM } as const;
  options.onProgress?.({ status: 'initiate', ...item });
  try {
    const { createWorker } = (await importPeer('tesseract.js', 'reading text in pictures (OCR)', () => import('tesseract.js'))) as unknown as {
      createWorker(langs: string, oem: number, options: object): Promise<OcrWorker>;
    };
    const ocr = await createWorker('eng', LSTM_ONLY, {
      langPath: languagePath(options),
      ...(options.workerPath ? { workerPath: options.workerPath, workerBlobURL: false } : {}),
      ...(options.corePath ? { corePath: options.corePath } : {}),
      cacheMethod: 'none',
      gzip: true,
      // Failures already reject the call that caused them; without a handler tesseract.js would
      // also throw them again from its message listener, where nothing can catch them.
      errorHandler: () => undefined,
    });
    options.onProgress?.({ status: 'ready', ...item });
    return { worker: ocr, thresholding: undefined };
  } catch (cause) {
    if (isVmemError(cause)) throw cause;
    throw new VmemError(
      'MODEL_LOAD_FAILED',
      `Could not start Tesseract OCR from ${options.langPath ?? options.languageFileUrl}${options.corePath ? ` and ${options.corePath}` : ''}: ${String((cause as Error)?.message ?? cause)}. ` +
        'Serve eng.traineddata.gz from @tesseract.js-data/eng/4.0.0_best_int there (and, in browsers, worker.min.js and a core script).',
      { cause },
    );
  }
}
