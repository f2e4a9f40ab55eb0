/**
 * vmem for LangChain.js / LangGraph.js (`@langchain/core` ≥ 1): a `BaseRetriever` returning one
 * `Document` per retrieved round, and the memory tools as LangChain tools. Needs the optional peers
 * `@langchain/core` and `zod`.
 */
export { VmemRetriever } from './adapters/langchain/retriever.js';
export type { VmemDocumentMetadata, VmemRetrieverInput } from './adapters/langchain/retriever.js';
export { memoryTools } from './adapters/langchain/tools.js';
export type { MemoryToolsOptions } from './adapters/langchain/tools.js';
