/**
 * The dependency-free agent loop: any `LlmProvider` that can call tools answers a question with the
 * memory tools. For agents built on a framework, use the `vmem/ai-sdk` or `vmem/langchain` tools.
 */
import { LlmError, VmemError } from '../errors.js';
import type { ImageResizer } from '../images/types.js';
import { formatDate } from '../llm/format-context.js';
import type { LlmProvider, LlmToolMessage } from '../llm/types.js';
import { READ_TOOLS, TOOL_SPECS, type MemoryToolName } from './definitions.js';
import { runTool, toolError, type RunToolOptions, type ToolImage, type ToolMemory } from './run-tool.js';

/** Options of `runAgent`. */
export interface AgentOptions {
  /**
   * The model; it must be able to call tools (`completeWithTools`), as `createOpenAiProvider` can.
   * With `vision: true` it also sees the pictures `get_images` fetches.
   */
  readonly llm: LlmProvider;
  readonly memory: ToolMemory;
  readonly question: string;
  /** The tools offered. @default ['recall', 'recall_by_time', 'get_images'] */
  readonly tools?: readonly MemoryToolName[];
  /** Most model calls; the last one is made with `tool_choice: 'none'` so it must answer. @default 6 */
  readonly maxSteps?: number;
  /** Shrinks pictures for `get_images` (vision models only). @default undefined (captions only) */
  readonly imageResizer?: ImageResizer;
  /** As in `runTool`: how `recall`'s image and `remember`'s pictures are read. @default data: URLs only */
  readonly resolveImage?: RunToolOptions['resolveImage'];
  /** Today's date, stated in the system prompt. @default Date.now() */
  readonly today?: number | Date;
  /** Called after each step that ran tools. */
  readonly onStep?: (step: AgentStep) => void;
  readonly signal?: AbortSignal;
}

/** One tool call the agent made. */
export interface AgentToolCall {
  readonly id: string;
  readonly name: string;
  /** Parsed arguments; the raw string when it was not JSON. */
  readonly arguments: unknown;
  /** The JSON the model got back: the tool's result, or `{ error: { code, message } }`. */
  readonly result: Readonly<Record<string, unknown>>;
  /** Pictures sent to the model after this call. */
  readonly imageIds: readonly string[];
}

/** One model call that asked for tools. */
export interface AgentStep {
  /** 1-based. */
  readonly index: number;
  readonly toolCalls: readonly AgentToolCall[];
}

/** What the agent answered and how it got there. */
export interface AgentResult {
  readonly answer: string;
  readonly steps: readonly AgentStep[];
  /** True when `maxSteps` ran out and the last call forbade tools. */
  readonly forcedFinal: boolean;
}

/** Default of `AgentOptions.maxSteps`. */
export const DEFAULT_AGENT_STEPS = 6;

/**
 * Asks the model with the memory tools, runs the tool calls it makes, feeds the results back, and
 * repeats until it answers in text (at most `maxSteps` calls). Pictures fetched by `get_images`
 * follow as a user message with images when `llm.vision` is true.
 * @example
 * const llm = createOpenAiProvider({ baseUrl, apiKey, model: 'gpt-4o-mini' });
 * const { answer, steps } = await runAgent({ llm, memory, question: 'What colour was my bike?' });
 */
export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const { llm } = options;
  if (!llm.completeWithTools) {
    throw new VmemError('LLM_UNAVAILABLE', `runAgent needs a model that can call tools; the "${llm.kind}" provider cannot. Use createOpenAiProvider with a tool-calling model.`);
  }
  const maxSteps = options.maxSteps === undefined ? DEFAULT_AGENT_STEPS : options.maxSteps;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new VmemError('INVALID_INPUT', `maxSteps must be a whole number ≥ 1, got ${String(maxSteps)}.`);
  const tools = (options.tools ?? READ_TOOLS).map((name) => ({ name, ...TOOL_SPECS[name] }));
  const toolOptions: RunToolOptions = {
    ...(llm.vision && options.imageResizer ? { imageResizer: options.imageResizer } : {}),
    ...(options.resolveImage ? { resolveImage: options.resolveImage } : {}),
  };
  const messages: LlmToolMessage[] = [
    { role: 'system', content: systemPrompt(options.today ?? Date.now()) },
    { role: 'user', content: options.question },
  ];
  const steps: AgentStep[] = [];

  for (let index = 1; index <= maxSteps; index++) {
    const last = index === maxSteps;
    const reply = await llm.completeWithTools({ messages, tools, toolChoice: last ? 'none' : 'auto', temperature: 0, ...(options.signal ? { signal: options.signal } : {}) });
    if (reply.toolCalls.length === 0 || last) {
      if (reply.content.trim() === '') {
        throw new LlmError('LLM_MALFORMED', `The model was still calling tools after ${maxSteps} steps and gave no answer; raise maxSteps or use a model that follows tool_choice "none".`);
      }
      return { answer: reply.content.trim(), steps, forcedFinal: last && steps.length > 0 };
    }
    messages.push({ role: 'assistant', content: reply.content, toolCalls: reply.toolCalls });
    const calls: AgentToolCall[] = [];
    const pictures: ToolImage[] = [];
    for (const call of reply.toolCalls) {
      const { args, result, images } = await executeCall(options.memory, call.name, call.arguments, toolOptions);
      messages.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(result) });
      calls.push({ id: call.id, name: call.name, arguments: args, result, imageIds: images.map((image) => image.imageId) });
      pictures.push(...images);
    }
    // Tool messages carry text only, so pictures follow as a user message the model can look at.
    if (pictures.length > 0) {
      const order = pictures.map((picture, at) => `picture ${at + 1} is image ${picture.imageId}`).join(', ');
      messages.push({
        role: 'user',
        content: `The pictures fetched by get_images, in order (${order}).`,
        images: pictures.map((picture) => ({ url: picture.url, detail: 'low' })),
      });
    }
    const step = { index, toolCalls: calls };
    steps.push(step);
    options.onStep?.(step);
  }
  throw new LlmError('LLM_MALFORMED', 'The agent loop ended without an answer.'); // Unreachable: the last step returns or throws.
}

async function executeCall(memory: ToolMemory, name: string, rawArguments: string, options: RunToolOptions) {
  let args: unknown;
  try {
    args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
  } catch {
    const message = `The arguments of ${name} were not valid JSON (${rawArguments.slice(0, 100)}); send a JSON object.`;
    return { args: rawArguments, result: { error: { code: 'INVALID_INPUT', message } }, images: [] as ToolImage[] };
  }
  try {
    const output = await runTool(memory, name, args, options);
    return { args, result: output.content, images: output.images };
  } catch (error) {
    return { args, result: toolError(error), images: [] as ToolImage[] };
  }
}

function systemPrompt(today: number | Date): string {
  return (
    "You are a chat assistant with a long-term memory of the user's earlier conversations, reachable only through tools. " +
    'Search the memory (recall) before answering; use recall_by_time for questions about a period, and get_images when ' +
    'the answer depends on what a picture shows. Answer from what the tools return only; if they do not hold the answer, ' +
    `say plainly that you don't have it in memory. Be brief. Today is ${formatDate(today)}.`
  );
}
