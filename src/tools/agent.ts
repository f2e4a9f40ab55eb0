/** A minimal agent loop: an OpenAI-compatible model answers a question by calling the memory tools. */
import { errorCode, LlmError, VmemError } from '../errors.js';
import type { ImageResizer } from '../images/types.js';
import { formatDate } from '../llm/format-context.js';
import { normalizeOpenAiProviderOptions, type OpenAiProviderOptions } from '../llm/openai.js';
import type { OpenAiContentPart } from '../llm/openai-wire.js';
import { chatWithTools, type WireMessage } from './chat-client.js';
import { MEMORY_TOOLS } from './definitions.js';
import { runTool, type ToolImage, type ToolMemory } from './run-tool.js';

/** Options of `runAgent`. */
export interface AgentOptions {
  /** The OpenAI-compatible server and model; the model must support tool calling. `vision: true` lets it see fetched pictures. */
  readonly llm: OpenAiProviderOptions;
  readonly memory: ToolMemory;
  readonly question: string;
  /** Most model calls; the last one is made with `tool_choice: 'none'` so it must answer. @default 6 */
  readonly maxSteps?: number;
  /** Shrinks pictures for `get_round_images` (vision models only). @default undefined (captions only) */
  readonly imageResizer?: ImageResizer;
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

// Errors in a tool's arguments go back to the model, which can correct itself; anything else stops the loop.
const MODEL_FIXABLE = new Set(['INVALID_INPUT', 'EMPTY_QUERY', 'TEXT_TOO_LONG', 'UNKNOWN_ROUND', 'UNKNOWN_IMAGE']);

/**
 * Asks the model with the memory tools, runs the tool calls it makes, feeds the results back, and
 * repeats until it answers in text (at most `maxSteps` calls). Pictures fetched by
 * `get_round_images` follow as a user message with `image_url` parts when `llm.vision` is true.
 * @example
 * const { answer, steps } = await runAgent({ llm: { baseUrl, apiKey, model: 'gpt-4o-mini' }, memory, question: 'What colour was my bike?' });
 */
export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const settings = normalizeOpenAiProviderOptions(options.llm);
  const maxSteps = options.maxSteps === undefined ? DEFAULT_AGENT_STEPS : options.maxSteps;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new VmemError('INVALID_INPUT', `maxSteps must be a whole number ≥ 1, got ${String(maxSteps)}.`);
  const resizer = settings.vision ? options.imageResizer : undefined;
  const messages: WireMessage[] = [
    { role: 'system', content: systemPrompt(options.today ?? Date.now()) },
    { role: 'user', content: options.question },
  ];
  const steps: AgentStep[] = [];

  for (let index = 1; index <= maxSteps; index++) {
    const last = index === maxSteps;
    const reply = await chatWithTools(settings, { messages, tools: MEMORY_TOOLS, toolChoice: last ? 'none' : 'auto', ...(options.signal ? { signal: options.signal } : {}) });
    if (reply.toolCalls.length === 0 || last) {
      if (reply.content === null || reply.content.trim() === '') {
        throw new LlmError('LLM_MALFORMED', `The model was still calling tools after ${maxSteps} steps and gave no answer; raise maxSteps or use a model that follows tool_choice "none".`);
      }
      return { answer: reply.content.trim(), steps, forcedFinal: last && steps.length > 0 };
    }
    messages.push({ role: 'assistant', content: reply.content, tool_calls: reply.toolCalls });
    const calls: AgentToolCall[] = [];
    const pictures: ToolImage[] = [];
    for (const call of reply.toolCalls) {
      const { args, result, images } = await executeCall(options.memory, call.function.name, call.function.arguments, resizer);
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
      calls.push({ id: call.id, name: call.function.name, arguments: args, result, imageIds: images.map((image) => image.imageId) });
      pictures.push(...images);
    }
    // Tool messages carry text only, so pictures follow as a user message the model can look at.
    if (pictures.length > 0) messages.push({ role: 'user', content: pictureMessage(pictures) });
    const step = { index, toolCalls: calls };
    steps.push(step);
    options.onStep?.(step);
  }
  throw new LlmError('LLM_MALFORMED', 'The agent loop ended without an answer.'); // Unreachable: the last step returns or throws.
}

async function executeCall(memory: ToolMemory, name: string, rawArguments: string, resizer: ImageResizer | undefined) {
  let args: unknown;
  try {
    args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
  } catch {
    const message = `The arguments of ${name} were not valid JSON (${rawArguments.slice(0, 100)}); send a JSON object.`;
    return { args: rawArguments, result: { error: { code: 'INVALID_INPUT', message } }, images: [] as ToolImage[] };
  }
  try {
    const output = await runTool(memory, name, args, resizer ? { imageResizer: resizer } : {});
    return { args, result: output.content, images: output.images };
  } catch (error) {
    const code = errorCode(error);
    if (code === undefined || !MODEL_FIXABLE.has(code)) throw error;
    return { args, result: { error: { code, message: (error as Error).message } }, images: [] as ToolImage[] };
  }
}

function pictureMessage(pictures: readonly ToolImage[]): OpenAiContentPart[] {
  const order = pictures.map((picture, index) => `picture ${index + 1} is image ${picture.imageId}`).join(', ');
  return [
    { type: 'text', text: `The pictures fetched by get_round_images, in order (${order}).` },
    ...pictures.map((picture): OpenAiContentPart => ({ type: 'image_url', image_url: { url: picture.url, detail: picture.detail ?? 'low' } })),
  ];
}

function systemPrompt(today: number | Date): string {
  return (
    "You are a chat assistant with a long-term memory of the user's earlier conversations, reachable only through tools. " +
    'Search the memory before answering; use search_memory_by_time for questions about a period, and get_round_images when ' +
    'the answer depends on what a picture shows. Answer from what the tools return only; if they do not hold the answer, ' +
    `say plainly that you don't have it in memory. Be brief. Today is ${formatDate(today)}.`
  );
}
