/** The memory tools as an MCP server (any transport); `cli.ts` serves it over stdio. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { MEMORY_TOOLS, runTool, toolError, type MemoryToolName, type RunToolOptions, type ToolMemory } from 'vmem/tools';
import { TOOL_INPUTS } from '../adapters/schemas.js';

const ANNOTATIONS: Readonly<Record<MemoryToolName, ToolAnnotations>> = {
  recall: { readOnlyHint: true },
  recall_by_time: { readOnlyHint: true },
  get_images: { readOnlyHint: true },
  remember: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  forget: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};

/** Options of `createMcpServer`. */
export interface McpServerOptions extends RunToolOptions {
  /** The version the server reports. @default '0.0.0' */
  readonly version?: string;
}

/**
 * An MCP server offering all five memory tools. Results are the tools' small JSON as text (and as
 * `structuredContent`); `get_images` adds the pictures as image content when `imageResizer` is set.
 * A mistake the model can correct comes back as an `isError` result with `{ error: { code, message } }`.
 */
export function createMcpServer(memory: ToolMemory, options: McpServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'vmem', version: options.version ?? '0.0.0' });
  for (const { function: definition } of MEMORY_TOOLS) {
    const name = definition.name;
    server.registerTool(name, { description: definition.description, inputSchema: TOOL_INPUTS[name], annotations: ANNOTATIONS[name] }, async (input: unknown): Promise<CallToolResult> => {
      const output = await runTool(memory, name, input, options).catch((error: unknown) => ({ content: toolError(error), images: [], failed: true }));
      return {
        content: [
          { type: 'text', text: JSON.stringify(output.content) },
          ...output.images.map((image) => ({ type: 'image' as const, data: image.base64, mimeType: image.mimeType })),
        ],
        structuredContent: output.content,
        ...('failed' in output ? { isError: true } : {}),
      };
    });
  }
  return server;
}
