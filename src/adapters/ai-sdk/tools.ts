/** The memory tools as AI SDK `tool()`s. */
import { tool, type Tool } from 'ai';
import { DEFAULT_TOOLS, TOOL_SPECS, runTool, toolError, type MemoryToolName, type RunToolOptions, type ToolImage, type ToolMemory } from 'vmem/tools';
import { TOOL_INPUTS, type ToolInputs } from '../schemas.js';

/** Options of `memoryTools`. */
export interface MemoryToolsOptions<Names extends MemoryToolName = MemoryToolName> extends RunToolOptions {
  /**
   * The tools to make. `forget` is left out by default: letting a model delete memories is a choice.
   * @default ['recall', 'recall_by_time', 'get_images', 'remember']
   */
  readonly tools?: readonly Names[];
}

/**
 * What a memory tool returns: the small JSON the model reads (`MemoryToolOutput`), or, for a mistake
 * the model can correct (a bad id, an unreadable picture), `{ error: { code, message } }`.
 * `get_images` with an `imageResizer` also carries the pictures, which go to the model as images.
 */
export type MemoryToolOutput = Readonly<Record<string, unknown>> & { readonly pictures?: readonly ToolImage[] };

/** The tools by name, each with its zod input schema. */
export type MemoryToolSet<Names extends MemoryToolName = MemoryToolName> = { [Name in Names]: Tool<ToolInputs[Name], MemoryToolOutput> };

type DefaultToolName = 'recall' | 'recall_by_time' | 'get_images' | 'remember';

/**
 * The memory tools for `generateText`/`streamText`: `recall` (text, optionally with a picture),
 * `recall_by_time`, `get_images`, `remember`, and on request `forget`. Inputs are zod schemas;
 * results are small JSON (round ids, dates, snippets, image ids and captions).
 *
 * Pictures: `get_images` sends them to the model only with an `imageResizer` (≤ 768 px JPEG), as
 * image parts of the tool result; use that only with providers that accept images in tool results
 * (others would receive the base64 as text).
 * @example
 * const { text } = await generateText({ model, tools: memoryTools(memory), stopWhen: stepCountIs(5), prompt: 'What bike did I buy?' });
 */
export function memoryTools<Names extends MemoryToolName = DefaultToolName>(memory: ToolMemory, options: MemoryToolsOptions<Names> = {}): MemoryToolSet<Names> {
  const names = options.tools ?? (DEFAULT_TOOLS as readonly Names[]);
  return Object.fromEntries(names.map((name) => [name, memoryTool(memory, name, options)])) as MemoryToolSet<Names>;
}

function memoryTool<Name extends MemoryToolName>(memory: ToolMemory, name: Name, options: RunToolOptions): Tool<ToolInputs[Name], MemoryToolOutput> {
  return tool<ToolInputs[Name], MemoryToolOutput>({
    description: TOOL_SPECS[name].description,
    inputSchema: TOOL_INPUTS[name],
    execute: (input) =>
      runTool(memory, name, input, options).then(
        ({ content, images }): MemoryToolOutput => (images.length > 0 ? { ...content, pictures: images } : content),
        toolError,
      ),
    toModelOutput: ({ output }) => {
      const { pictures, ...json } = output;
      if (!pictures) return { type: 'json', value: json as never };
      return {
        type: 'content',
        value: [{ type: 'text', text: JSON.stringify(json) }, ...pictures.map((picture) => ({ type: 'image-data' as const, data: picture.base64, mediaType: picture.mimeType }))],
      };
    },
  });
}
