import { VmemError } from '../errors.js';
import { createLazy } from '../util/lazy.js';
import { createSerialQueue } from '../util/serial-queue.js';

/** A model's life: built once on first use, its calls one at a time, refused once disposed. */
export interface ModelHandle<T> {
  /** Builds the model now instead of on the first call. */
  load(): Promise<void>;
  /**
   * Runs `work` after every earlier call. `work` asks for the model when it needs it, so it can check
   * its input before any model is loaded.
   */
  run<R>(work: (model: () => Promise<T>) => Promise<R>): Promise<R>;
  /** Waits for the running call, releases the model, and refuses every later call with `CLOSED`. */
  dispose(): Promise<void>;
}

/**
 * @example
 * const model = createModelHandle(() => loadModelSession(options, 'mobilenet-v2', 'MobileNetV2'), 'MobileNet image encoder', (session) => session.release());
 * const vectors = await model.run(async (session) => runBatch(await session(), inputs));
 */
export function createModelHandle<T>(build: () => Promise<T>, what: string, release: (model: T) => Promise<void>): ModelHandle<T> {
  const queue = createSerialQueue();
  const loaded = createLazy(build);
  let disposed = false;
  const ensureOpen = (): void => {
    if (disposed) throw new VmemError('CLOSED', `This ${what} was disposed; create a new one.`);
  };
  return {
    async load() {
      ensureOpen();
      await loaded.get();
    },
    run(work) {
      return queue.run(async () => {
        ensureOpen();
        return work(() => loaded.get());
      });
    },
    dispose() {
      return queue.run(async () => {
        disposed = true;
        const model = loaded.peek();
        loaded.reset();
        if (model !== undefined) await release(model);
      });
    },
  };
}
