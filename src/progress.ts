/**
 * Progress of long work (model loads, ingest, re-indexing, rebuilding the index, image descriptions,
 * video sampling), as
 * one union tagged by `status`. Every run of a task starts with `initiate` and ends with `done` (or
 * `ready` for a model) or `failed`; in between, `loaded` never decreases and never passes `total`.
 */

/**
 * What the work is. `index`: opening a memory builds the index segments it lacks, once (a memory
 * stored by an older vmem or imported from a file, or a segment found damaged: that run ends
 * `failed` with code `INDEX_CORRUPT`, and the rebuild follows as a new run). `unlock`: opening an
 * encrypted memory derives the key from the passphrase (Argon2id, tens of ms) and unwraps the data
 * key with it; `done` once the memory's records can be read (`failed` with `WRONG_PASSPHRASE`).
 */
export type ProgressTask = 'model' | 'ingest' | 'reindex' | 'index' | 'describe' | 'video-sample' | 'video-capture' | 'encrypt' | 'unlock' | 'sync';

/** What `loaded` and `total` count. */
export type ProgressUnit = 'bytes' | 'files' | 'rounds' | 'documents' | 'images' | 'frames' | 'percent';

interface ProgressBase {
  readonly task: ProgressTask;
  /**
   * The model or file being worked on, for `model` tasks.
   * @example 'use-lite-512'
   */
  readonly item?: string;
}

/** One progress report. */
export type VmemProgress =
  | (ProgressBase & { readonly status: 'initiate' })
  | (ProgressBase & { readonly status: 'progress'; readonly loaded: number; readonly total: number; readonly unit: ProgressUnit })
  | (ProgressBase & { readonly status: 'done' })
  /** A model is loaded and can run. */
  | (ProgressBase & { readonly status: 'ready' })
  /** The task stopped with an error; `code` is the `VmemError` code when there is one. */
  | (ProgressBase & { readonly status: 'failed'; readonly code?: string; readonly message: string });

export type ProgressCallback = (event: VmemProgress) => void;
