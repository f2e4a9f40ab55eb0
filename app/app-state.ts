/**
 * The app's moving parts in one place: the encoder worker, the open memory, the LLM, and the
 * progress they report. Panes read from it and call its verbs; it never touches pane DOM.
 */
import type { Memory } from '../src/memory/types.js';
import type { ProgressUnit, VmemProgress } from '../src/progress.js';
import { VmemError } from '../src/errors.js';
import type { LlmProvider } from '../src/llm/types.js';
import { deleteMemory, listMemories } from '../src/storage/idb.js';
import { chooseWasmThreads, type EncoderCallCounts } from '../src/worker/protocol.js';
import { startEncoders, type StartedEncoders } from '../src/worker/start.js';
import { createImageUrls, type ImageUrls } from './image-urls.js';
import { createLlm } from './llm.js';
import { openMemorySession, type MemorySession } from './session.js';
import { rememberMemoryName, saveSettings, type AppSettings } from './settings.js';

/** What the app tells its views. */
export interface AppEvents {
  /** Model files downloading: bytes loaded over bytes total across files; undefined when done. */
  modelProgress(fraction: number | undefined, text: string): void;
  /** Rounds encoded over rounds to store; undefined when done. */
  ingestProgress(fraction: number | undefined, text: string): void;
  /** The encoders (re)started; `engine` says on which backend and why. */
  engineChanged(engine: StartedEncoders): void;
  /** A memory was opened (or reopened after another tab changed it). */
  memoryChanged(session: MemorySession): void;
  notice(text: string): void;
  error(error: unknown, retry?: { label: string; run(): void }): void;
}

/** Options of `createAppState`. */
export interface AppStateOptions {
  readonly createWorker: () => Worker;
  /** Folder that holds `models/` (the app's own origin). */
  readonly assetBase: string;
  readonly events: AppEvents;
}

/** The app's state and verbs. */
export class AppState {
  engine: StartedEncoders | undefined;
  session: MemorySession | undefined;
  settings: AppSettings;
  llm: LlmProvider | undefined;
  readonly images: ImageUrls;
  private readonly modelFiles = new Map<string, { loaded: number; total: number; unit: ProgressUnit }>();

  constructor(
    private readonly options: AppStateOptions,
    settings: AppSettings,
  ) {
    this.settings = settings;
    this.images = createImageUrls((id) => this.memory.getImage(id));
  }

  /** The open memory; throws `CLOSED` while none is open (e.g. during a switch). */
  get memory(): Memory {
    if (!this.session) throw new VmemError('CLOSED', 'No memory is open yet; wait for the models to load.');
    return this.session.memory;
  }

  /** Starts (or restarts) the encoder worker with the current settings. */
  async startEngine(): Promise<StartedEncoders> {
    this.engine?.client.terminate();
    this.engine = undefined;
    this.modelFiles.clear();
    const threads = chooseWasmThreads(globalThis.crossOriginIsolated === true, navigator.hardwareConcurrency || 1);
    const engine = await startEncoders({
      createWorker: this.options.createWorker,
      encoders: this.settings.encoders,
      backend: this.settings.backend,
      assetBase: this.options.assetBase,
      threads,
      onProgress: (event) => this.onModelProgress(event),
    });
    this.options.events.modelProgress(undefined, '');
    this.engine = engine;
    void engine.client.stopped.then((reason) => {
      if (this.engine !== engine) return;
      this.options.events.error(reason, { label: 'Restart the encoders', run: () => void this.restart() });
    });
    this.options.events.engineChanged(engine);
    return engine;
  }

  /** Opens memory `name` (creating it when new) and makes it the current one. */
  async openMemory(name: string, reindex = false): Promise<MemorySession> {
    const engine = this.engine;
    if (!engine) throw new VmemError('CLOSED', 'The encoders are not running; reload the page.');
    await this.closeMemory();
    this.llm = createLlm(this.settings.llm, (event) => this.onModelProgress(event));
    const session = await openMemorySession({
      name,
      encoders: engine.client,
      llm: this.llm,
      reindex,
      onProgress: (event) => this.onIngestProgress(event),
      onRemoteChange: (change) => void this.onRemoteChange(name, change.type),
    });
    this.session = session;
    rememberMemoryName(name);
    this.options.events.memoryChanged(session);
    return session;
  }

  async closeMemory(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    this.images.reset();
    await session?.close();
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
    if (encodersChanged) {
      await this.closeMemory();
      await this.startEngine();
    }
    await this.openMemory(name);
  }

  async encoderCalls(): Promise<EncoderCallCounts> {
    if (!this.engine) throw new VmemError('CLOSED', 'The encoders are not running.');
    return this.engine.client.counts();
  }

  private async restart(): Promise<void> {
    const name = this.session?.name ?? 'default';
    await this.closeMemory();
    await this.startEngine();
    await this.openMemory(name);
  }

  private async onRemoteChange(name: string, type: 'written' | 'deleted'): Promise<void> {
    if (this.session?.name !== name && this.session !== undefined) return;
    this.session = undefined;
    this.images.reset();
    try {
      if (type === 'deleted') {
        this.options.events.notice(`Memory "${name}" was deleted in another tab; opened "default".`);
        await this.openMemory('default');
      } else {
        await this.openMemory(name);
        this.options.events.notice(`Memory "${name}" was updated in another tab; reloaded it.`);
      }
    } catch (error) {
      this.options.events.error(error);
    }
  }

  /** Models report bytes (text model) or file counts (image model): average their fractions. */
  private onModelProgress(event: VmemProgress): void {
    if (event.status !== 'progress') return;
    this.modelFiles.set(event.item ?? event.task, { loaded: event.loaded, total: event.total, unit: event.unit });
    const parts = [...this.modelFiles].map(([item, { loaded, total, unit }]) =>
      unit === 'bytes' ? `${item} ${(loaded / 1e6).toFixed(1)}/${(total / 1e6).toFixed(1)} MB` : `${item} ${loaded}/${total} ${unit}`,
    );
    const fractions = [...this.modelFiles.values()].map(({ loaded, total }) => (total > 0 ? loaded / total : 0));
    const fraction = fractions.reduce((sum, value) => sum + value, 0) / fractions.length;
    this.options.events.modelProgress(fraction, `Loading models: ${parts.join(', ')}`);
  }

  private onIngestProgress(event: VmemProgress): void {
    if (event.status === 'progress') {
      const label = event.task === 'reindex' ? 'Re-encoding' : 'Encoding';
      this.options.events.ingestProgress(event.loaded / Math.max(1, event.total), `${label} rounds: ${event.loaded} of ${event.total}`);
    } else if (event.status === 'done') {
      this.options.events.ingestProgress(undefined, '');
    }
  }
}
