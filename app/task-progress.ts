/**
 * Progress of the app's long work (an add, the sample, an import, a re-encode, describing pictures)
 * as a state machine: a run starts `running` the moment it is asked for (before any encoding, so even
 * a one-round add shows), counts rounds (or pictures, while describing) as the library reports them,
 * and always ends `done` or `failed`, whatever the library's events said.
 */
import { errorCode, type ProgressCallback, type VmemProgress } from 'vmem';

/** What a run counts. */
export type TaskUnit = 'rounds' | 'pictures';

/** What one run shows. */
export type TaskState =
  | { readonly phase: 'running'; readonly label: string; readonly loaded: number; readonly total: number | undefined; readonly unit: TaskUnit }
  | { readonly phase: 'done'; readonly label: string }
  | { readonly phase: 'failed'; readonly label: string; readonly code: string | undefined };

/** Makes the progress callback of one `add` that stores rounds `offset…` of the run. */
export type IngestProgress = (offset?: number) => ProgressCallback;

/** A run in progress. */
interface Run {
  state: TaskState;
}

/** Runs tasks and reports their states; while several run, the newest is shown. */
export class TaskProgress {
  private readonly running: Run[] = [];
  /** Callers of `whenStoringDone` waiting for the runs that store rounds to end. */
  private waiting: (() => void)[] = [];
  /** The pictures being described: its own run, which can outlast the add that started it (`describe: 'background'`). */
  private describing: Run | undefined;

  constructor(private readonly changed: (state: TaskState) => void) {}

  /** The state shown now: the newest running task, if any. */
  get current(): TaskState | undefined {
    return this.running[this.running.length - 1]?.state;
  }

  /**
   * Runs `work` as a task of `total` rounds (undefined when unknown). `work` gets the progress
   * callbacks to hand to `memory.add`; the pictures they describe become a run of their own.
   * @example await tasks.run('Storing 1 round', 1, (progress) => memory.add(round, { onProgress: progress() }))
   */
  async run<T>(label: string, total: number | undefined, work: (progress: IngestProgress) => Promise<T>): Promise<T> {
    const run = this.begin({ phase: 'running', label, loaded: 0, total, unit: 'rounds' });
    const progress: IngestProgress =
      (offset = 0) =>
      (event) => {
        if (event.task === 'describe') return this.onDescribe(event);
        const state = run.state;
        if (event.status !== 'progress' || (event.task !== 'ingest' && event.task !== 'reindex') || state.phase !== 'running') return;
        const loaded = Math.max(state.loaded, offset + event.loaded);
        this.update(run, { ...state, loaded, total: total ?? Math.max(loaded, offset + event.total) });
      };
    try {
      const result = await work(progress);
      this.end(run, { phase: 'done', label });
      return result;
    } catch (error) {
      this.end(run, { phase: 'failed', label, code: errorCode(error) });
      throw error;
    }
  }

  /**
   * Resolves once no run stores rounds (an add, the sample, an import, a re-encode): at once when
   * none does. Describing pictures in the background does not count: it can last minutes.
   */
  whenStoringDone(): Promise<void> {
    if (!this.isStoring()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private isStoring(): boolean {
    return this.running.some((run) => run !== this.describing);
  }

  private onDescribe(event: VmemProgress): void {
    const label = 'Describing pictures';
    if (event.status === 'initiate' || (event.status === 'progress' && !this.describing)) {
      this.describing ??= this.begin({ phase: 'running', label, loaded: 0, total: undefined, unit: 'pictures' });
    }
    const run = this.describing;
    if (!run) return;
    if (event.status === 'progress' && run.state.phase === 'running') this.update(run, { ...run.state, loaded: event.loaded, total: event.total });
    else if (event.status === 'done' || event.status === 'ready') this.end(run, { phase: 'done', label });
    else if (event.status === 'failed') this.end(run, { phase: 'failed', label, code: event.code });
    if (event.status === 'done' || event.status === 'ready' || event.status === 'failed') this.describing = undefined;
  }

  private begin(state: TaskState): Run {
    const run = { state };
    this.running.push(run);
    this.changed(state);
    return run;
  }

  private update(run: Run, next: TaskState): void {
    run.state = next;
    this.changed(this.current ?? next);
  }

  private end(run: Run, final: TaskState): void {
    const at = this.running.indexOf(run);
    if (at < 0) return;
    this.running.splice(at, 1);
    run.state = final;
    this.changed(this.current ?? final);
    if (this.isStoring()) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/**
 * A count with its noun, singular for one.
 * @example plural(1, 'round') // "1 round"; plural(1200, 'round') // "1,200 rounds"
 */
export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en')} ${count === 1 ? noun : `${noun}s`}`;
}
