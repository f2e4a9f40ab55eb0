/**
 * vmem's tool entry: the memory as tools an LLM calls (recall, recall by time, get images, remember,
 * forget), their JSON-schema definitions, one function that runs a call against a memory, and a
 * small agent loop over an `LlmProvider`. The AI SDK, LangChain and MCP adapters are built on these.
 * @example
 * import { runAgent } from 'vmem/tools';
 * const { answer } = await runAgent({ memory, llm, question: 'What did I say about the boiler?' });
 */
export { MEMORY_TOOLS, TOOL_SPECS, READ_TOOLS, DEFAULT_TOOLS, toolDefinitions } from './tools/definitions.js';
export type { ToolDefinition, MemoryToolName } from './tools/definitions.js';
export { runTool, toolError } from './tools/run-tool.js';
export type { RunToolOptions, ToolImage, ToolMemory, ToolResult, ToolRound } from './tools/run-tool.js';
export { imageFromDataUrl } from './tools/image-source.js';
export type { ImageSourceResolver } from './tools/image-source.js';
export { runAgent } from './tools/agent.js';
export type { AgentOptions, AgentResult, AgentStep, AgentToolCall } from './tools/agent.js';
