/**
 * The memory tools: one vocabulary for every place an agent meets vmem (OpenAI function calling,
 * `runAgent`, the AI SDK and LangChain adapters, the MCP server). This file holds their names,
 * descriptions and JSON Schemas; the adapters' zod schemas are checked against these in their tests.
 */

/** Names of the memory tools. */
export type MemoryToolName = 'recall' | 'recall_by_time' | 'get_images' | 'remember' | 'forget';

/** A tool as the chat-completions `tools` array takes it. */
export interface ToolDefinition {
  readonly type: 'function';
  readonly function: {
    readonly name: MemoryToolName;
    readonly description: string;
    /** JSON Schema of the arguments object. */
    readonly parameters: Readonly<Record<string, unknown>>;
  };
}

/** Most rounds a search tool returns. */
export const MAX_TOOL_ROUNDS = 20;
/** Most pictures `get_images` returns. */
export const MAX_TOOL_IMAGES = 5;
/** Most rounds `get_images` takes, and most images `remember` takes. */
export const MAX_TOOL_LIST = 10;

/** The tools that only read: what `runAgent` offers by default. */
export const READ_TOOLS: readonly MemoryToolName[] = ['recall', 'recall_by_time', 'get_images'];
/** The tools the adapters offer by default: reading, and remembering an exchange. `forget` is opt-in. */
export const DEFAULT_TOOLS: readonly MemoryToolName[] = [...READ_TOOLS, 'remember'];

const IMAGE_SOURCE =
  'An image as a data: URL (data:image/jpeg;base64,…); hosts may also accept other references, such as a file path.';

/** Descriptions and argument schemas of each tool, by name. */
export const TOOL_SPECS = {
  recall: {
    description:
      "Search the user's long-term memory of earlier conversations (text, voice notes, photos, video clips) by meaning and keywords, " +
      'optionally with a picture to find similar ones. Returns the best-matching rounds with their ids, dates, text snippets, image ids and confidence (0 to 1), ' +
      'and relevant: false when nothing in memory seems to match (the rounds are then only the closest guesses).',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for, in plain words, e.g. "sister\'s new flat in Lisbon".' },
        image: { type: 'string', description: `Optional picture to search with. ${IMAGE_SOURCE}` },
        limit: { type: 'integer', minimum: 1, maximum: MAX_TOOL_ROUNDS, description: 'Most rounds to return (default 5).' },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  recall_by_time: {
    description:
      'List the rounds of conversation between two dates (inclusive), oldest first, optionally ranked by a text query. ' +
      'Use it for questions like "what did I do last weekend?".',
    parameters: {
      type: 'object',
      properties: {
        from: { type: 'string', description: 'Start, ISO 8601: "2025-03-01" or "2025-03-01T09:00:00Z".' },
        to: { type: 'string', description: 'End, ISO 8601; a bare date includes that whole day (UTC).' },
        query: { type: 'string', description: 'Optional: rank the rounds in the range by this text instead of listing them by time.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_TOOL_ROUNDS, description: 'Most rounds to return (default 10).' },
      },
      required: ['from', 'to'],
      additionalProperties: false,
    },
  },
  get_images: {
    description:
      'Fetch the pictures of the given rounds (ids from a search), to look at visual details the text lacks: colours, ' +
      'written text, clothing. Returns image ids and captions; where the host can show pictures, they follow.',
    parameters: {
      type: 'object',
      properties: {
        roundIds: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_TOOL_LIST, description: 'Round ids from search results.' },
        maxImages: { type: 'integer', minimum: 1, maximum: MAX_TOOL_IMAGES, description: 'Most pictures to return (default 3).' },
      },
      required: ['roundIds'],
      additionalProperties: false,
    },
  },
  remember: {
    description:
      'Store one exchange in long-term memory: what the user said (with any pictures) and, optionally, the reply. ' +
      'Use it for facts, plans and pictures worth recalling in later conversations. Returns the new round id.',
    parameters: {
      type: 'object',
      properties: {
        user: { type: 'string', description: "The user's words to remember." },
        assistant: { type: 'string', description: 'Optional: the reply given, when it matters later.' },
        images: {
          type: 'array',
          maxItems: MAX_TOOL_LIST,
          description: "Optional pictures of the user's turn.",
          items: {
            type: 'object',
            properties: {
              source: { type: 'string', description: IMAGE_SOURCE },
              caption: { type: 'string', description: 'Optional: what the picture shows, in a few words (indexed as text).' },
            },
            required: ['source'],
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
  },
  forget: {
    description: 'Remove one round (and its pictures) from long-term memory for good, e.g. when the user asks to forget it.',
    parameters: {
      type: 'object',
      properties: { roundId: { type: 'string', description: 'The round id, from a search result or from remember.' } },
      required: ['roundId'],
      additionalProperties: false,
    },
  },
} as const satisfies Record<MemoryToolName, { description: string; parameters: Record<string, unknown> }>;

/**
 * All five tools in OpenAI function-calling format, for any agent loop that can call tools. Results
 * are small JSON objects (ids, dates, short text snippets, image ids and captions); pictures travel
 * beside the JSON. Pick a subset with `toolDefinitions`.
 * @example
 * await fetch(url, { method: 'POST', body: JSON.stringify({ model, messages, tools: toolDefinitions(READ_TOOLS) }) });
 */
export const MEMORY_TOOLS: readonly ToolDefinition[] = toolDefinitions(Object.keys(TOOL_SPECS) as MemoryToolName[]);

/** The definitions of the named tools, in the order given. */
export function toolDefinitions(names: readonly MemoryToolName[]): ToolDefinition[] {
  return names.map((name) => ({ type: 'function', function: { name, ...TOOL_SPECS[name] } }));
}
