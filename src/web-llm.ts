/**
 * vmem's WebLLM entry: an LLM that runs in the page on WebGPU through `@mlc-ai/web-llm`, an optional
 * peer (`npm install @mlc-ai/web-llm`). A separate entry, so an app that never uses it needs neither
 * the package nor a bundler setting for it.
 * @example
 * import { createWebLlmProvider } from 'vmem/web-llm';
 * const llm = createWebLlmProvider({ model: 'Llama-3.2-1B-Instruct-q4f16_1-MLC' });
 */
export { createWebLlmProvider } from './llm/web-llm.js';
export type { WebLlmEngine, WebLlmProvider, WebLlmProviderOptions } from './llm/web-llm.js';
