/**
 * The app's moving parts in one place: the encoder worker, the open memory, the LLM, and the
 * progress they report. Panes read from it and call its verbs; it never touches pane DOM.
 * Everything goes through the package's public entries, as in any app built on vmem.
 */
import { VmemError, errorCode, type AnswerResult, type LlmProvider, type ProgressCallback, type ProgressUnit, type Query, type RoundInput, type StoredRound, type VmemProgress } from 'vmem';
import {
  deleteMemory,
  encryptMemory,
  listMemories,
  openMemory,
  startBrowserEncoders,
  type BrowserEncoders,
  type BrowserMemory,
  type EncoderCallCounts,
  type RemoteChange,
} from 'vmem/browser';
// onnxruntime-web's full build, for WebGPU and the hub encoders: vmem does not ship it, so the app
// names it and Vite emits it; the browser fetches it only when one of those runs.
import webgpuWasm from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.wasm?url';
import { createImageUrls, type ImageUrls } from './image-urls.js';
import { createLlm, missingKeyError } from './llm.js';
import { keyMissing, rememberMemoryName, rememberWebGpuAbsent, saveSettings, webGpuAbsentSince, type AppSettings } from './settings.js';
import { plural, TaskProgress, type TaskState } from './task-progress.js';

/** Rounds per `add` of an import: each batch is stored before the next is encoded, so an interrupted import keeps what it stored. */
export const IMPORT_BATCH_ROUNDS = 64;

/** One model's download, as its own bar (models load side by side, in different units). */
export interface ModelLoad {
  readonly item: string;
  readonly loaded: number;
  readonly total: number;
  readonly unit: ProgressUnit;
}

/** The open memory, and how long opening it took. */
export interface MemorySession {
  readonly name: string;
  readonly memory: BrowserMemory;
  /** Milliseconds to open: read stored vectors and rebuild the indexes. */
  readonly openMs: number;
  /** How a memory locked with a passphrase was unlocked: kept in this tab only, to reopen it (new settings, another tab's write), never stored. */
  readonly passphrase?: string;
}

/** What the app tells its views. */
export interface AppEvents {
  /** The models downloading, each with its own count; empty once the encoders run. */
  modelProgress(loads: readonly ModelLoad[]): void;
  /** A long write started, moved on, or ended (`done` or `failed`, always). */
  taskChanged(state: TaskState): void;
  /** The encoders (re)started; `engine` says on which backend and why. */
  engineChanged(engine: BrowserEncoders): void;
  /** A memory was opened (or reloaded after another tab changed it). */
  memoryChanged(session: MemorySession): void;
  notice(text: string): void;
  error(error: unknown, retry?: { label: string; run(): void }): void;
}

/** What `importRounds` did. */
export interface ImportOutcome {
  /** Rounds stored by this run. */
  readonly added: number;
  /** Rounds that were already stored (by an earlier, interrupted run) and were skipped. */
  readonly skipped: number;
}

/** The app's state and verbs. */
export class AppState {
  engine: BrowserEncoders | undefined;
  /** Set when the engine runs on WASM without asking for WebGPU, which this browser lacked then. */
  webGpuAbsentSince: Date | undefined;
  session: MemorySession | undefined;
  settings: AppSettings;
  llm: LlmProvider | undefined;
  readonly images: ImageUrls;
  /** Long writes in progress; the badge and the progress bar read it. */
  readonly tasks: TaskProgress;
  private readonly modelLoads = new Map<string, ModelLoad>();
  /** Where a re-encode's progress goes while `openMemory` re-encodes. */
  private reindexProgress: ProgressCallback | undefined;

  constructor(
    private readonly events: AppEvents,
    settings: AppSettings,
  ) {
    this.settings = settings;
    this.images = createImageUrls((id) => this.memory.getImage(id));
    this.tasks = new TaskProgress((state) => events.taskChanged(state));
  }

  /** The open memory; throws `CLOSED` while none is open (e.g. during a switch). */
  get memory(): BrowserMemory {
    if (!this.session) throw new VmemError('CLOSED', 'No memory is open yet; wait for the models to load.');
    return this.session.memory;
  }

  /** Starts (or restarts) the encoder worker with the current settings; every memory shares it. */
  async startEngine(): Promise<BrowserEncoders> {
    this.engine?.terminate();
    this.engine = undefined;
    this.modelLoads.clear();
    let engine: BrowserEncoders;
    const auto = this.settings.backend === 'auto';
    this.webGpuAbsentSince = auto ? webGpuAbsentSince() : undefined;
    try {
      engine = await startBrowserEncoders({
        encoders: this.settings.encoders,
        backend: this.webGpuAbsentSince ? 'wasm' : this.settings.backend,
        webgpuWasm,
        onProgress: (event) => this.onModelProgress(event),
      });
      if (auto && !this.webGpuAbsentSince) rememberWebGpuAbsent('gpu' in navigator && !engine.webgpu.available);
    } finally {
      this.modelLoads.clear();
      this.events.modelProgress([]);
    }
    this.engine = engine;
    void engine.stopped.then((reason) => {
      if (this.engine !== engine) return;
      this.events.error(reason, { label: 'Restart the encoders', run: () => void this.restart() });
    });
    this.events.engineChanged(engine);
    return engine;
  }

  /**
   * Opens memory `name` (creating it when new) and makes it the current one; `reindex` re-encodes a
   * memory built by other encoders. Another memory opens beside the current one, which closes only
   * once the new one is open: a refusal (other encoders, damage, a missing or wrong passphrase)
   * leaves the current memory in use. `passphrase` unlocks a locked memory, or locks a new one.
   */
  async openMemory(name: string, reindex = false, passphrase?: string): Promise<MemorySession> {
    const engine = this.engine;
    if (!engine) throw new VmemError('CLOSED', 'The encoders are not running; reload the page.');
    // The same memory cannot be open twice in one tab: reopening it closes it first.
    if (this.session?.name === name) await this.closeMemory();
    const previous = this.session;
    const llm = createLlm(this.settings.llm, (event) => this.onModelProgress(event));
    const started = performance.now();
    const open = () =>
      openMemory(name, {
        encoders: engine,
        llm,
        onEncoderMismatch: reindex ? 'reindex' : 'error',
        // Only a re-encode reports here: every add passes its own callback.
        onProgress: (event) => this.reindexProgress?.(event),
        onRemoteChange: (change) => void this.onRemoteChange(name, change),
        ...(passphrase === undefined ? {} : { encryption: { passphrase } }),
      });
    const memory = reindex
      ? await this.tasks.run(`Re-encoding memory "${name}"`, undefined, async (progress) => {
          this.reindexProgress = progress();
          try {
            return await open();
          } finally {
            this.reindexProgress = undefined;
          }
        })
      : await open();
    const session: MemorySession = { name, memory, openMs: performance.now() - started, ...(passphrase === undefined ? {} : { passphrase }) };
    if (previous) {
      this.session = undefined;
      this.images.reset();
      await previous.memory.close();
    }
    this.llm = llm;
    this.session = session;
    rememberMemoryName(name);
    this.events.memoryChanged(session);
    return session;
  }

  async closeMemory(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    this.images.reset();
    await session?.memory.close();
  }

  /**
   * Locks the open memory with `passphrase`: it is closed, encrypted where it lies (resumable: an
   * interrupted lock finishes when the memory is next unlocked), and opened again, unlocked.
   */
  async lockCurrent(passphrase: string): Promise<MemorySession> {
    const name = this.session?.name;
    if (!name) throw new VmemError('CLOSED', 'No memory is open to lock.');
    if (this.session?.passphrase !== undefined) throw new VmemError('INVALID_INPUT', `Memory "${name}" is already locked with a passphrase; use "Change passphrase" to change it.`);
    const empty = this.memory.size === 0;
    await this.closeMemory();
    // An empty memory has nothing to encrypt: it is made again, locked.
    if (empty) {
      await deleteMemory(name);
      return this.openMemory(name, false, passphrase);
    }
    try {
      await this.tasks.run(`Locking memory "${name}"`, undefined, (progress) => encryptMemory(name, { passphrase }, { onProgress: progress() }));
    } catch (error) {
      // Open again whatever happened: with the passphrase once its key record was written (opening finishes the lock), else as it was.
      await this.openMemory(name, false, passphrase).catch(() => this.openMemory(name));
      throw error;
    }
    return this.openMemory(name, false, passphrase);
  }

  /** Re-wraps the open memory's key under `next` (nothing is encrypted again). */
  async changePassphrase(current: string, next: string): Promise<void> {
    const session = this.session;
    if (!session) throw new VmemError('CLOSED', 'No memory is open.');
    if (session.passphrase === undefined) throw new VmemError('INVALID_INPUT', `Memory "${session.name}" is not locked; lock it with a passphrase first.`);
    await session.memory.changePassphrase(current, next);
    this.session = { ...session, passphrase: next };
  }

  /** Deletes the current memory and opens `next`. */
  async deleteCurrent(next: string): Promise<void> {
    const name = this.session?.name;
    if (!name) return;
    await this.closeMemory();
    await deleteMemory(name);
    await this.openMemory(next);
  }

  /** Names of stored memories, always including the open one. */
  async memoryNames(): Promise<string[]> {
    const names = new Set(await listMemories());
    if (this.session) names.add(this.session.name);
    return [...names].sort();
  }

  /** Applies new settings: restarts the encoders only when they changed, then reopens the memory. */
  async applySettings(settings: AppSettings): Promise<void> {
    const encodersChanged = settings.encoders !== this.settings.encoders || settings.backend !== this.settings.backend;
    this.settings = settings;
    saveSettings(settings);
    const name = this.session?.name ?? 'default';
    const passphrase = this.session?.passphrase;
    if (encodersChanged) {
      await this.closeMemory();
      await this.startEngine();
    }
    await this.openMemory(name, false, passphrase);
  }

  /**
   * Stores rounds as one task, shown from the moment it is asked for until it ends. With
   * `describe: 'background'` the rounds are searchable as soon as they are stored, and their pictures
   * are described afterwards, as a task of their own. `rounds` may be made inside the task (fetching
   * a sample's photos), so the progress shows from the moment it is asked for.
   * @example await app.addRounds([round], 'Storing your message')
   */
  addRounds(
    rounds: readonly RoundInput[] | (() => Promise<readonly RoundInput[]>),
    label: string,
    options: { readonly describe?: 'wait' | 'background' } = {},
  ): Promise<StoredRound[]> {
    const memory = this.memory;
    return this.tasks.run(label, typeof rounds === 'function' ? undefined : rounds.length, async (progress) => {
      const toAdd = typeof rounds === 'function' ? await rounds() : rounds;
      return toAdd.length === 0 ? [] : memory.add(toAdd, { onProgress: progress(), ...options });
    });
  }

  /**
   * Stores a long list of rounds in batches of `IMPORT_BATCH_ROUNDS`, skipping rounds already
   * stored, so running it again after an interruption resumes it without re-encoding anything.
   * `onBatch` hears the number of rounds stored so far after each batch.
   */
  importRounds(rounds: readonly RoundInput[], label: string, onBatch: (stored: number) => void): Promise<ImportOutcome> {
    const memory = this.memory;
    const missing = rounds.filter((round) => round.id === undefined || !memory.has(round.id));
    const skipped = rounds.length - missing.length;
    return this.tasks.run(label, rounds.length, async (progress) => {
      let stored = skipped;
      for (let start = 0; start < missing.length; start += IMPORT_BATCH_ROUNDS) {
        const batch = missing.slice(start, start + IMPORT_BATCH_ROUNDS);
        await memory.add(batch, { onProgress: progress(stored) });
        stored += batch.length;
        onBatch(stored);
      }
      return { added: missing.length, skipped };
    });
  }

  /**
   * Retrieves and asks the LLM. Refuses (`LLM_UNAVAILABLE`, saying why) when the endpoint's key was
   * not remembered, rather than the memory's generic "no LLM configured".
   */
  answer(query: Query | string): Promise<AnswerResult> {
    const llm = this.settings.llm;
    if (llm.kind === 'openai' && keyMissing(llm)) return Promise.reject(missingKeyError(llm.baseUrl));
    return this.memory.answer(query);
  }

  async encoderCalls(): Promise<EncoderCallCounts> {
    if (!this.engine) throw new VmemError('CLOSED', 'The encoders are not running.');
    return this.engine.counts();
  }

  private async restart(): Promise<void> {
    const name = this.session?.name ?? 'default';
    const passphrase = this.session?.passphrase;
    await this.closeMemory();
    await this.startEngine();
    await this.openMemory(name, false, passphrase);
  }

  /** The memory reloads itself after another tab's write; a deleted or broken one is replaced. */
  private async onRemoteChange(name: string, change: RemoteChange): Promise<void> {
    const session = this.session;
    if (session?.name !== name) return;
    if (change.type === 'reloaded') {
      this.images.reset();
      this.events.memoryChanged(session);
      this.events.notice(`Memory "${name}" was updated in another tab; reloaded it.`);
      return;
    }
    this.session = undefined;
    this.images.reset();
    // A loss is said below, in the app's words; the error's advice is for developers.
    if (change.type === 'closed') this.events.error(change.error);
    try {
      await this.openAfterLoss('default', change.type === 'lost');
      if (change.type === 'deleted') this.events.notice(`Memory "${name}" was deleted in another tab; opened "default".`);
      if (change.type === 'lost') {
        this.events.notice(`Memory "${name}" is no longer stored on this device (the browser cleared this site's data). Opened "default" (${plural(this.memory.size, 'round')}); import an export to restore what was lost.`);
      }
    } catch (error) {
      this.events.error(error);
    }
  }

  /**
   * Opens `name` after the memory in use went away. While the browser is still clearing the site's
   * data, opening a database fails for a moment: try again for a few seconds before giving up.
   */
  private async openAfterLoss(name: string, clearing: boolean): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.openMemory(name);
        return;
      } catch (error) {
        if (!clearing || errorCode(error) !== 'STORAGE_FAILED' || attempt >= 8) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  /**
   * Models report bytes (text model) or file counts (image model), and start at different times:
   * each keeps its own bar, so no bar ever moves back when another model begins.
   */
  private onModelProgress(event: VmemProgress): void {
    if (event.status !== 'progress') return;
    const item = event.item ?? event.task;
    const previous = this.modelLoads.get(item);
    const loaded = Math.max(previous?.loaded ?? 0, event.loaded);
    // A finished download's bar goes at once: it must not cover the results for the rest of the visit.
    if (loaded >= event.total) this.modelLoads.delete(item);
    else this.modelLoads.set(item, { item, loaded, total: event.total, unit: event.unit });
    this.events.modelProgress([...this.modelLoads.values()]);
  }
}

/** Says how far a model load got, in its own unit. */
export function describeModelLoad({ item, loaded, total, unit }: ModelLoad): string {
  return unit === 'bytes' ? `${item}: ${(loaded / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB` : `${item}: ${loaded} of ${plural(total, unit.replace(/s$/, ''))}`;
}
