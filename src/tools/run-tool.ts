/** Runs one memory tool call and returns small JSON for the model (pictures travel beside it). */
import type { Memory } from '../memory/types.js';
import { VmemError } from '../errors.js';
import { prepareImages } from '../images/attach.js';
import type { ImageResizer } from '../images/types.js';
import type { LlmImage } from '../llm/types.js';
import type { ImageRef, StoredRound } from '../types.js';
import { imagesOf } from '../types.js';
import { MAX_TOOL_IMAGES, MAX_TOOL_ROUNDS, type MemoryToolName } from './definitions.js';

/** What the tools need from a memory. */
export type ToolMemory = Pick<Memory, 'retrieve' | 'search' | 'rounds' | 'get' | 'getImage'>;

/** Options of `runTool`. */
export interface RunToolOptions {
  /** Shrinks pictures for `get_round_images`; without it only image ids and captions are returned. @default undefined */
  readonly imageResizer?: ImageResizer;
  /** Longest characters of each turn's text in results. @default 300 */
  readonly snippetChars?: number;
}

/** A picture returned by a tool, for a vision model; not part of the JSON. */
export interface ToolImage extends LlmImage {
  readonly imageId: string;
}

/** A tool's output: `content` is the small JSON the model reads; `images` go to a vision model separately. */
export interface ToolResult {
  readonly content: Readonly<Record<string, unknown>>;
  readonly images: readonly ToolImage[];
}

/** A round as tools show it. */
export interface ToolRound {
  readonly id: string;
  /** ISO 8601, UTC, to the minute. */
  readonly date: string;
  readonly session: string;
  readonly user?: string;
  readonly assistant?: string;
  readonly images?: readonly { readonly id: string; readonly caption?: string }[];
  readonly meta?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * Runs `name` with `args` (the parsed JSON arguments of a tool call). Bad arguments reject with
 * `INVALID_INPUT`, whose message tells the model what to fix; an unknown tool too.
 * @example
 * const { content } = await runTool(memory, 'search_memory', { query: 'violin teacher' });
 */
export async function runTool(memory: ToolMemory, name: string, args: unknown, options: RunToolOptions = {}): Promise<ToolResult> {
  const input = asObject(args, name);
  switch (name as MemoryToolName) {
    case 'search_memory':
      return { content: await searchMemory(memory, input, options), images: [] };
    case 'search_memory_by_time':
      return { content: await searchByTime(memory, input, options), images: [] };
    case 'get_round_images':
      return getRoundImages(memory, input, options);
    default:
      throw new VmemError('INVALID_INPUT', `There is no tool "${name}"; use search_memory, search_memory_by_time or get_round_images.`);
  }
}

async function searchMemory(memory: ToolMemory, input: Record<string, unknown>, options: RunToolOptions) {
  const query = requiredString(input, 'query', 'search_memory');
  const limit = optionalLimit(input, 'limit', 5, MAX_TOOL_ROUNDS);
  const result = await memory.retrieve(query, { k: limit, aggregationK: limit, neighbours: 0 });
  const rounds = result.trace
    .filter((entry) => !entry.neighbour)
    .slice(0, limit)
    .flatMap((entry) => {
      const round = memory.get(entry.roundId);
      return round ? [toolRound(round, options)] : [];
    });
  return { query, rounds };
}

async function searchByTime(memory: ToolMemory, input: Record<string, unknown>, options: RunToolOptions) {
  const from = parseTime(requiredString(input, 'from', 'search_memory_by_time'), 'from');
  const to = parseTime(requiredString(input, 'to', 'search_memory_by_time'), 'to');
  if (from > to) throw new VmemError('INVALID_INPUT', '"from" is after "to"; swap them.');
  const query = input.query === undefined ? undefined : requiredString(input, 'query', 'search_memory_by_time');
  const limit = optionalLimit(input, 'limit', 10, MAX_TOOL_ROUNDS);
  const inRange = memory.rounds().filter((round) => round.timestamp >= from && round.timestamp <= to);
  let chosen: StoredRound[];
  if (query === undefined || query.trim() === '') {
    chosen = inRange.slice(0, limit);
  } else {
    const roundIds = new Set(inRange.map((round) => round.id));
    const [keyword, meaning] = await Promise.all([
      memory.search({ signal: 'bm25', text: query, roundIds, limit: limit * 4 }),
      memory.search({ signal: 'dense', text: query, roundIds, limit: limit * 4 }),
    ]);
    chosen = fuseByRound([keyword, meaning])
      .slice(0, limit)
      .flatMap((roundId) => memory.get(roundId) ?? []);
  }
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    total: inRange.length,
    ...(query ? { query } : {}),
    rounds: chosen.map((round) => toolRound(round, options)),
  };
}

async function getRoundImages(memory: ToolMemory, input: Record<string, unknown>, options: RunToolOptions): Promise<ToolResult> {
  const roundIds = input.roundIds;
  if (!Array.isArray(roundIds) || roundIds.length === 0 || !roundIds.every((id) => typeof id === 'string')) {
    throw new VmemError('INVALID_INPUT', 'get_round_images needs "roundIds": a non-empty array of round id strings from a search result.');
  }
  const max = optionalLimit(input, 'maxImages', 3, MAX_TOOL_IMAGES);
  const unknownRoundIds: string[] = [];
  const refs: ImageRef[] = [];
  for (const id of roundIds as string[]) {
    const round = memory.get(id);
    if (!round) unknownRoundIds.push(id);
    else refs.push(...imagesOf(round));
  }
  const { prepared, skipped } = options.imageResizer ? await prepareImages(refs, { getImage: (id) => memory.getImage(id), resizer: options.imageResizer, max }) : { prepared: [], skipped: [] };
  const pictureOf = new Map(prepared.map((item, index) => [item.ref.id, index + 1]));
  const reasonOf = new Map(skipped.map((item) => [item.imageId, item.reason]));
  const images = refs.map((ref) => ({
    imageId: ref.id,
    roundId: ref.roundId,
    ...(ref.caption ? { caption: ref.caption } : {}),
    ...(pictureOf.has(ref.id) ? { picture: pictureOf.get(ref.id) } : {}),
    ...(reasonOf.has(ref.id) ? { unavailable: reasonOf.get(ref.id) } : {}),
  }));
  const note = options.imageResizer
    ? prepared.length > 0
      ? `${prepared.length} picture(s) follow, numbered as in "picture".`
      : 'None of these images could be shown; use the captions.'
    : 'Pictures cannot be shown here; use the captions.';
  return {
    content: { images, note, ...(unknownRoundIds.length > 0 ? { unknownRoundIds } : {}) },
    images: prepared.map((item) => ({ ...item.image, imageId: item.ref.id })),
  };
}

/** A round as small JSON: the date to the minute, each turn's text cut to a snippet. */
export function toolRound(round: StoredRound, options: RunToolOptions = {}): ToolRound {
  const max = options.snippetChars === undefined ? 300 : options.snippetChars;
  const images = imagesOf(round).map((ref) => ({ id: ref.id, ...(ref.caption ? { caption: ref.caption } : {}) }));
  return {
    id: round.id,
    date: `${new Date(round.timestamp).toISOString().slice(0, 16)}Z`,
    session: round.sessionId,
    ...(round.user.text ? { user: snippet(round.user.text, max) } : {}),
    ...(round.assistant.text ? { assistant: snippet(round.assistant.text, max) } : {}),
    ...(images.length > 0 ? { images } : {}),
    ...(round.meta ? { meta: round.meta } : {}),
  };
}

function snippet(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Round ids ranked by reciprocal-rank fusion of unit rankings (κ = 60). */
function fuseByRound(rankings: readonly { roundId: string }[][]): string[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    const seen = new Set<string>();
    for (const hit of ranking) {
      if (seen.has(hit.roundId)) continue;
      seen.add(hit.roundId);
      scores.set(hit.roundId, (scores.get(hit.roundId) ?? 0) + 1 / (60 + seen.size));
    }
  }
  return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([roundId]) => roundId);
}

/** Epoch ms of an ISO date or date-time; a bare date as `to` means the end of that day (UTC). */
function parseTime(value: string, field: 'from' | 'to'): number {
  const bareDate = /^\d{4}-\d{2}-\d{2}$/.test(value.trim());
  const time = Date.parse(bareDate ? `${value.trim()}T00:00:00Z` : value);
  if (Number.isNaN(time)) throw new VmemError('INVALID_INPUT', `"${field}" must be an ISO 8601 date such as "2025-03-01" or "2025-03-01T09:00:00Z", got ${JSON.stringify(value)}.`);
  return bareDate && field === 'to' ? time + 86_400_000 - 1 : time;
}

function asObject(args: unknown, name: string): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new VmemError('INVALID_INPUT', `The arguments of ${name} must be a JSON object.`);
  }
  return args as Record<string, unknown>;
}

function requiredString(input: Record<string, unknown>, key: string, tool: string): string {
  const value = input[key];
  if (typeof value !== 'string' || value.trim() === '') throw new VmemError('INVALID_INPUT', `${tool} needs "${key}" as a non-empty string.`);
  return value;
}

function optionalLimit(input: Record<string, unknown>, key: string, fallback: number, max: number): number {
  const value = input[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new VmemError('INVALID_INPUT', `"${key}" must be a whole number from 1 to ${max}.`);
  return Math.min(value, max);
}
