import type { ProgressCallback } from '../progress.js';
import { LlmError, VmemError } from '../errors.js';
import type { LlmProvider, LlmRequest } from './types.js';

/**
 * The part of a WebLLM `MLCEngine` this provider uses. Any object of this shape can be injected
 * (a `CreateWebWorkerMLCEngine` engine, or a fake in tests).
 */
export interface WebLlmEngine {
  readonly chat: {
    readonly completions: {
      create(request: WebLlmChatRequest): Promise<unknown>;
    };
  };
  /** Stops the generation in progress; called when the caller's signal aborts. */
  interruptGenerate?(): void | Promise<void>;
  /** Frees the model's GPU memory. */
  unload?(): Promise<void>;
}

/** The non-streaming chat request we send to WebLLM. */
export interface WebLlmChatRequest {
  readonly messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  readonly temperature: number;
  readonly max_tokens?: number;
  readonly stream: false;
}

/** Options of `createWebLlmProvider`. */
export interface WebLlmProviderOptions {
  /**
   * A WebLLM prebuilt model id. Downloaded (and cached by the browser) on first use.
   * @default (required)
   * @example 'Llama-3.2-1B-Instruct-q4f16_1-MLC'
   */
  readonly model: string;
  /** Progress of the model download and compilation, 0–100, task `web-llm:<model>`. @default undefined */
  readonly onProgress?: ProgressCallback;
  /** An engine already created; `model` is then only a label and nothing is downloaded. @default undefined */
  readonly engine?: WebLlmEngine;
}

/** A WebLLM provider: an `LlmProvider` that can also be loaded ahead of the first call and unloaded. */
export interface WebLlmProvider extends LlmProvider {
  /** Downloads and compiles the model now instead of on the first `complete`. Retries after a failure. */
  load(): Promise<void>;
  /** Frees the engine; a later call loads it again. */
  dispose(): Promise<void>;
}

/**
 * An LLM that runs in the page on WebGPU through `@mlc-ai/web-llm`. Browser only; text only
 * (`vision: false`, images on messages are dropped). The model loads on the first call or on `load()`;
 * a failed load rejects with `MODEL_LOAD_FAILED` and the next call tries again. Calls run one at a time.
 * @example
 * const llm = createWebLlmProvider({ model: 'Llama-3.2-1B-Instruct-q4f16_1-MLC', onProgress: (e) => console.log(e) });
 * await llm.load();
 */
export function createWebLlmProvider(options: WebLlmProviderOptions): WebLlmProvider {
  if (typeof options.model !== 'string' || options.model.trim() === '') {
    throw new VmemError('INVALID_INPUT', "model must name a WebLLM model, e.g. 'Llama-3.2-1B-Instruct-q4f16_1-MLC'.");
  }
  let engine: Promise<WebLlmEngine> | undefined = options.engine === undefined ? undefined : Promise.resolve(options.engine);
  const queue = createSerialQueue();

  const ensureEngine = (): Promise<WebLlmEngine> => {
    if (engine === undefined) {
      const loading = loadEngine(options.model, options.onProgress);
      engine = loading;
      // Never keep a rejected load: the next call retries (e.g. after the user enables WebGPU).
      loading.catch(() => {
        if (engine === loading) engine = undefined;
      });
    }
    return engine;
  };

  return {
    kind: 'web-llm',
    available: true,
    vision: false,
    load: async () => {
      await ensureEngine();
    },
    dispose: async () => {
      const current = engine;
      engine = undefined;
      if (current !== undefined) await (await current).unload?.();
    },
    complete: (request) => {
      request.signal?.throwIfAborted();
      return queue(async () => {
        request.signal?.throwIfAborted(); // Cancelled while waiting for its turn.
        return generate(await ensureEngine(), request, options.model);
      });
    },
  };
}

async function loadEngine(model: string, onProgress: ProgressCallback | undefined): Promise<WebLlmEngine> {
  const progress = { task: 'model', item: `web-llm:${model}` } as const;
  let shown = 0;
  onProgress?.({ status: 'initiate', ...progress });
  try {
    const webllm = await import('@mlc-ai/web-llm');
    const engine = await webllm.CreateMLCEngine(model, {
      // Annotated by hand: web-llm's .d.ts files use extension-less imports that NodeNext cannot follow.
      initProgressCallback: (report: { readonly progress: number }) => {
        // WebLLM's fraction can step back between phases; what we report never does.
        shown = Math.max(shown, Math.round(Math.min(1, Math.max(0, report.progress)) * 100));
        onProgress?.({ status: 'progress', ...progress, loaded: shown, total: 100, unit: 'percent' });
      },
    });
    onProgress?.({ status: 'progress', ...progress, loaded: 100, total: 100, unit: 'percent' });
    onProgress?.({ status: 'done', ...progress });
    onProgress?.({ status: 'ready', ...progress });
    return engine;
  } catch (error) {
    throw new VmemError(
      'MODEL_LOAD_FAILED',
      `Could not load the WebLLM model "${model}" (${error instanceof Error ? error.message : String(error)}). ` +
        'WebLLM needs a browser with WebGPU (recent Chrome or Edge) and a model id from its prebuilt list; ' +
        'or configure an OpenAI-compatible provider instead.',
      { cause: error },
    );
  }
}

async function generate(engine: WebLlmEngine, request: LlmRequest, model: string): Promise<string> {
  const signal = request.signal;
  const onAbort = () => void engine.interruptGenerate?.();
  signal?.addEventListener('abort', onAbort, { once: true });
  let reply: unknown;
  try {
    reply = await engine.chat.completions.create({
      messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
      temperature: request.temperature === undefined ? 0 : request.temperature,
      max_tokens: request.maxTokens,
      stream: false,
    });
  } catch (error) {
    if (signal?.aborted === true) throw signal.reason;
    throw engineError(error, model);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  // An interrupted generation resolves with partial text; the caller asked to stop, so reject.
  if (signal?.aborted === true) throw signal.reason;
  const content = replyContent(reply);
  if (typeof content !== 'string') {
    throw new LlmError('LLM_MALFORMED', `WebLLM model "${model}" returned no text in choices[0].message.content.`);
  }
  return content;
}

function engineError(error: unknown, model: string): LlmError {
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'ContextWindowSizeExceededError') {
    return new LlmError(
      'LLM_CONTEXT_LENGTH',
      `The prompt does not fit WebLLM model "${model}"'s context window (${detail}); send less retrieved context.`,
      { cause: error },
    );
  }
  // The contract has no generic "generation failed" code; a failing local engine (e.g. GPU device lost)
  // means the LLM is not usable right now.
  return new LlmError(
    'LLM_UNAVAILABLE',
    `WebLLM model "${model}" failed while generating (${detail}); reload the page to restart the engine.`,
    { cause: error },
  );
}

function replyContent(reply: unknown): unknown {
  if (typeof reply !== 'object' || reply === null) return undefined;
  const choices = (reply as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return undefined;
  const first: unknown = choices[0];
  if (typeof first !== 'object' || first === null) return undefined;
  const message = (first as { message?: unknown }).message;
  if (typeof message !== 'object' || message === null) return undefined;
  return (message as { content?: unknown }).content;
}

/** Runs tasks one after another; a failed task rejects its own caller and does not block the next. */
function createSerialQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task);
    tail = run.catch(() => undefined); // The failure is reported through `run`; the queue moves on.
    return run;
  };
}
