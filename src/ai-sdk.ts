/**
 * vmem for the Vercel AI SDK (`ai` ≥ 6): the memory tools as `tool()`s with zod schemas, and a
 * middleware that adds retrieved memory to every model call. Needs the optional peers `ai` and `zod`.
 */
export { memoryTools } from './adapters/ai-sdk/tools.js';
export type { MemoryToolOutput, MemoryToolSet, MemoryToolsOptions } from './adapters/ai-sdk/tools.js';
export { memoryMiddleware, MEMORY_CONTEXT_HEADER, MEMORY_NOTHING_FOUND } from './adapters/ai-sdk/middleware.js';
export type { MemoryMiddlewareOptions } from './adapters/ai-sdk/middleware.js';
export { TOOL_INPUTS } from './adapters/schemas.js';
export type { ToolInputs } from './adapters/schemas.js';
