/**
 * The app's moving parts in one place: the encoder worker, the open memory, the LLM, and the
 * progress they report. Panes read from it and call its verbs; it never touches pane DOM.
 * Everything goes through the package's public entries, as in any app built on vmem.
 */
import { VmemError, type LlmProvider, type ProgressUnit, type VmemProgress } from 'vmem';
import {
  deleteMemory,
  listMemories,
  openMemory,
  startBrowserEncoders,
  type BrowserEncoders,
  type BrowserMemory,
  type EncoderCallCounts,
  type RemoteChange,
} from 'vmem/browser';
import { createImageUrls, type ImageUrls } from './image-urls.js';
import { createLlm } from './llm.js';
import { rememberMemoryName, saveSettings, type AppSettings } from './settings.js';

/** The open memory, and how long opening it took. */
export interface MemorySession {
  readonly name: string;
  readonly memory: BrowserMemory;
  /** Milliseconds to open: read stored vectors and rebuild the indexes. */
  readonly openMs: number;
}

/** What the app tells its views. */
export interface AppEvents {
  /** Model files downloading: bytes loaded over bytes total across files; undefined when done. */
  modelProgress(fraction: number | undefined, text: string): void;
  /** Rounds encoded over rounds to store; undefined when done. */
  ingestProgress(fraction: number | undefined, text: string): void;
  /** The encoders (re)started; `engine` says on which backend and why. */
  engineChanged(engine: BrowserEncoders): void;
  /** A memory was opened (or reloaded after another tab changed it). */
  memoryChanged(session: MemorySession): void;
  notice(text: string): void;
  error(error: unknown, retry?: { label: string; run(): void }): void;
}

/** The app's state and verbs. */
export class AppState {
  engine: BrowserEncoders | undefined;
  session: MemorySession | undefined;
  settings: AppSettings;
  llm: LlmProvider | undefined;
  readonly images: ImageUrls;
  private readonly modelFiles = new Map<string, { loaded: number; total: number; unit: ProgressUnit }>();

  constructor(
    private readonly events: AppEvents,
    settings: AppSettings,
  ) {
    this.settings = settings;
    this.images = createImageUrls((id) => this.memory.getImage(id));
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
    this.modelFiles.clear();
    const engine = await startBrowserEncoders({
      encoders: this.settings.encoders,
      backend: this.settings.backend,
      onProgress: (event) => this.onModelProgress(event),
    });
    this.events.modelProgress(undefined, '');
    this.engine = engine;
    void engine.stopped.then((reason) => {
      if (this.engine !== engine) return;
      this.events.error(reason, { label: 'Restart the encoders', run: () => void this.restart() });
    });
    this.events.engineChanged(engine);
    return engine;
  }

  /** Opens memory `name` (creating it when new) and makes it the current one. */
  async openMemory(name: string, reindex = false): Promise<MemorySession> {
    const engine = this.engine;
    if (!engine) throw new VmemError('CLOSED', 'The encoders are not running; reload the page.');
    await this.closeMemory();
    this.llm = createLlm(this.settings.llm, (event) => this.onModelProgress(event));
    const started = performance.now();
    const memory = await openMemory(name, {
      encoders: engine,
      llm: this.llm,
      onEncoderMismatch: reindex ? 'reindex' : 'error',
      onProgress: (event) => this.onIngestProgress(event),
      onRemoteChange: (change) => void this.onRemoteChange(name, change),
    });
    const session: MemorySession = { name, memory, openMs: performance.now() - started };
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
    return this.engine.counts();
  }

  private async restart(): Promise<void> {
    const name = this.session?.name ?? 'default';
    await this.closeMemory();
    await this.startEngine();
    await this.openMemory(name);
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
    if (change.type === 'closed') this.events.error(change.error);
    try {
      if (change.type === 'deleted') this.events.notice(`Memory "${name}" was deleted in another tab; opened "default".`);
      await this.openMemory('default');
    } catch (error) {
      this.events.error(error);
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
    this.events.modelProgress(fraction, `Loading models: ${parts.join(', ')}`);
  }

  private onIngestProgress(event: VmemProgress): void {
    if (event.status === 'progress') {
      const label = event.task === 'reindex' ? 'Re-encoding rounds' : event.task === 'describe' ? 'Describing pictures' : 'Encoding rounds';
      this.events.ingestProgress(event.loaded / Math.max(1, event.total), `${label}: ${event.loaded} of ${event.total}`);
    } else if (event.status === 'done') {
      this.events.ingestProgress(undefined, '');
    }
  }
}
