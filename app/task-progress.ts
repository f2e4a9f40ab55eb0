/**
 * Progress of the app's long writes (an add, the sample, an import, a re-encode) as a state machine:
 * a run starts `running` the moment it is asked for (before any encoding, so even a one-round add
 * shows), counts rounds as the library reports them, and always ends `done` or `failed`, whatever
 * the library's events said.
 */
import { errorCode, type ProgressCallback } from 'vmem';

/** What one run shows. */
export type TaskState =
  | { readonly phase: 'running'; readonly label: string; readonly loaded: number; readonly total: number | undefined }
  | { readonly phase: 'done'; readonly label: string }
  | { readonly phase: 'failed'; readonly label: string; readonly code: string | undefined };

/** Makes the progress callback of one `add` that stores rounds `offset…` of the run. */
export type IngestProgress = (offset?: number) => ProgressCallback;

/** Runs tasks and reports their states; while several run, the newest is shown. */
export class TaskProgress {
  private readonly running: TaskState[] = [];

  constructor(private readonly changed: (state: TaskState) => void) {}

  /** The state shown now: the newest running task, if any. */
  get current(): TaskState | undefined {
    return this.running[this.running.length - 1];
  }

  /**
   * Runs `work` as a task of `total` rounds (undefined when unknown). `work` gets the progress
   * callbacks to hand to `memory.add`.
   * @example await tasks.run('Storing 1 round', 1, (progress) => memory.add(round, { onProgress: progress() }))
   */
  async run<T>(label: string, total: number | undefined, work: (progress: IngestProgress) => Promise<T>): Promise<T> {
    let state: TaskState = { phase: 'running', label, loaded: 0, total };
    this.running.push(state);
    const update = (next: TaskState) => {
      this.running[this.running.indexOf(state)] = next;
      state = next;
      this.changed(this.current ?? next);
    };
    this.changed(state);
    const progress: IngestProgress =
      (offset = 0) =>
      (event) => {
        // Rounds only: the describer's events count pictures, in a run of their own.
        if (event.status !== 'progress' || (event.task !== 'ingest' && event.task !== 'reindex') || state.phase !== 'running') return;
        const loaded = Math.max(state.loaded, offset + event.loaded);
        update({ ...state, loaded, total: total ?? Math.max(loaded, offset + event.total) });
      };
    const end = (final: TaskState) => {
      this.running.splice(this.running.indexOf(state), 1);
      state = final;
      this.changed(this.current ?? final);
    };
    try {
      const result = await work(progress);
      end({ phase: 'done', label });
      return result;
    } catch (error) {
      end({ phase: 'failed', label, code: errorCode(error) });
      throw error;
    }
  }
}

/**
 * A count with its noun, singular for one.
 * @example plural(1, 'round') // "1 round"; plural(1200, 'round') // "1,200 rounds"
 */
export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en')} ${count === 1 ? noun : `${noun}s`}`;
}
