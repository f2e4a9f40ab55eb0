/** The memory tools as LangChain tools. */
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { DEFAULT_TOOLS, TOOL_SPECS, runTool, toolError, type MemoryToolName, type RunToolOptions, type ToolImage, type ToolMemory } from 'vmem/tools';
import { TOOL_INPUTS } from '../schemas.js';

/** Options of `memoryTools`. */
export interface MemoryToolsOptions extends RunToolOptions {
  /**
   * The tools to make. `forget` is left out by default: letting a model delete memories is a choice.
   * @default ['recall', 'recall_by_time', 'get_images', 'remember']
   */
  readonly tools?: readonly MemoryToolName[];
}

/**
 * The memory tools as LangChain tools (`recall`, `recall_by_time`, `get_images`, `remember`, and on
 * request `forget`), with zod schemas. Each returns its small JSON result as the tool message's
 * text and, as the artifact, the pictures `get_images` prepared (with an `imageResizer`), so the
 * host can show them to a vision model in a message of its own. A mistake the model can correct
 * (a bad id, an unreadable picture) comes back as `{ error: { code, message } }`.
 * @example
 * const agent = createAgent({ model, tools: memoryTools(memory) });
 */
export function memoryTools(memory: ToolMemory, options: MemoryToolsOptions = {}): StructuredToolInterface[] {
  return (options.tools ?? DEFAULT_TOOLS).map(
    (name) =>
      tool(
        async (input: unknown): Promise<[string, readonly ToolImage[]]> => {
          const output = await runTool(memory, name, input, options).then((result) => result, (error: unknown) => ({ content: toolError(error), images: [] }));
          return [JSON.stringify(output.content), output.images];
        },
        { name, description: TOOL_SPECS[name].description, schema: TOOL_INPUTS[name], responseFormat: 'content_and_artifact' },
      ),
  );
}
