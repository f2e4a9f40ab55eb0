/** The memory tools in OpenAI function-calling format, for any agent loop that can call tools. */

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

/** Names of the memory tools. */
export type MemoryToolName = 'search_memory' | 'search_memory_by_time' | 'get_round_images';

/** Most rounds a search tool returns. */
export const MAX_TOOL_ROUNDS = 20;
/** Most pictures `get_round_images` returns. */
export const MAX_TOOL_IMAGES = 5;

/**
 * `search_memory`, `search_memory_by_time` and `get_round_images`. Results are small JSON objects
 * (ids, dates, short text snippets, image ids and captions); pictures travel beside the JSON.
 * @example
 * await fetch(url, { method: 'POST', body: JSON.stringify({ model, messages, tools: MEMORY_TOOLS }) });
 */
export const MEMORY_TOOLS: readonly ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'search_memory',
      description:
        "Search the user's long-term memory of earlier conversations (text, voice notes, photos, video clips) by meaning and keywords. " +
        'Returns the best-matching rounds with their ids, dates, text snippets and image ids.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What to look for, in plain words, e.g. "sister\'s new flat in Lisbon".' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_TOOL_ROUNDS, description: 'Most rounds to return (default 5).' },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search_memory_by_time',
      description:
        'List the rounds of conversation between two dates (inclusive), oldest first, optionally ranked by a text query. ' +
        'Use it for questions like "what did I do last weekend?".',
      parameters: {
        type: 'object',
        properties: {
          from: { type: 'string', description: 'Start, ISO 8601 date or date-time, e.g. "2025-03-01" or "2025-03-01T09:00:00Z".' },
          to: { type: 'string', description: 'End, ISO 8601; a bare date includes that whole day (UTC).' },
          query: { type: 'string', description: 'Optional: rank the rounds in the range by this text instead of by time.' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_TOOL_ROUNDS, description: 'Most rounds to return (default 10).' },
        },
        required: ['from', 'to'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_round_images',
      description:
        'Fetch the pictures of the given rounds (ids from a search), to look at visual details the text lacks: colours, ' +
        'written text, clothing. Returns image ids and captions; with a vision model the pictures themselves follow.',
      parameters: {
        type: 'object',
        properties: {
          roundIds: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 10, description: 'Round ids from search results.' },
          maxImages: { type: 'integer', minimum: 1, maximum: MAX_TOOL_IMAGES, description: 'Most pictures to return (default 3).' },
        },
        required: ['roundIds'],
        additionalProperties: false,
      },
    },
  },
];
