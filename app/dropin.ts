/**
 * The drop-in script: `<script src=".../dropin/vmem.js">` gives a page the global `vmem`, a thin
 * layer over `vmem/browser`. `vmem.openMemory(name, options)` is `openMemory` with the worker and
 * models served from the script's own folder, and `llm` may also be the settings of an
 * OpenAI-compatible endpoint (a page without a bundler cannot import the provider). Works on pages
 * that are not cross-origin isolated (WASM then runs on one thread). `memory.sync` fetches PouchDB
 * (`pouchdb.mjs`, beside this script) on its first call; a page that never syncs never loads it.
 */
import { VmemError, createOpenAiProvider, type LlmProvider, type OpenAiProviderOptions } from 'vmem';
import { deleteMemory, importMemory, listMemories, openMemory as openBrowserMemory, type BrowserMemory, type OpenMemoryOptions } from 'vmem/browser';
import { SCRIPT_URL } from './dropin-script-url.js';

/** Options of the drop-in's `openMemory`: those of `vmem/browser`, with two drop-in defaults. */
export interface DropinOptions extends Omit<OpenMemoryOptions, 'llm' | 'baseUrl'> {
  /**
   * Folder that holds `encoder.worker.js` and `models/`.
   * @default the folder this script was loaded from
   * @example 'https://cdn.example.com/vmem/dropin/'
   */
  readonly baseUrl?: string | URL;
  /**
   * The LLM for `answer`: a provider object, or the settings of an OpenAI-compatible endpoint.
   * @default none (`answer` rejects with `LLM_UNAVAILABLE`)
   */
  readonly llm?: LlmProvider | OpenAiProviderOptions;
}

/**
 * Opens (or creates) the memory `name`.
 * @example
 * const memory = await vmem.openMemory('support-chat');
 * await memory.add({ user: { text: 'My order #123 never arrived' }, assistant: { text: 'Sorry! Resending it.' } });
 * const { blocks } = await memory.retrieve('what happened to my order?');
 */
export function openMemory(name: string, options: DropinOptions = {}): Promise<BrowserMemory> {
  const { llm, ...rest } = options;
  const baseUrl = options.baseUrl ?? (SCRIPT_URL ? new URL('./', SCRIPT_URL).href : undefined);
  if (baseUrl === undefined) {
    return Promise.reject(new VmemError('INVALID_INPUT', 'Could not tell where vmem.js was loaded from; pass openMemory(name, { baseUrl: "https://…/dropin/" }).'));
  }
  return openBrowserMemory(name, { ...rest, baseUrl, ...(llm ? { llm: 'complete' in llm ? llm : createOpenAiProvider(llm) } : {}) });
}

export { deleteMemory, importMemory, listMemories, VmemError };
