/** Runs one memory tool call and returns small JSON for the model (pictures travel beside it). */
import type { Memory } from '../memory/types.js';
import { bestPerGroup, reciprocalRankFusion } from '../core/fusion.js';
import { errorCode, VmemError, type VmemErrorCode } from '../errors.js';
import { prepareImages } from '../images/attach.js';
import type { ImageResizer } from '../images/types.js';
import { imagesOf, type ImageInput, type ImageRef, type StoredRound } from '../types.js';
import { MAX_TOOL_IMAGES, MAX_TOOL_LIST, MAX_TOOL_ROUNDS, TOOL_SPECS, type MemoryToolName } from './definitions.js';
import { imageFromDataUrl, type ImageSourceResolver } from './image-source.js';

/** What the tools need from a memory. */
export type ToolMemory = Pick<Memory, 'retrieve' | 'search' | 'rounds' | 'get' | 'getImage' | 'add' | 'forget'>;

/** Options of `runTool`, and of every adapter built on it. */
export interface RunToolOptions {
  /** Shrinks pictures for `get_images`; without it only image ids and captions are returned. @default undefined */
  readonly imageResizer?: ImageResizer;
  /** Longest characters of each turn's text in results. @default 300 */
  readonly snippetChars?: number;
  /**
   * Turns the image references a model writes (`recall`'s `image`, `remember`'s `images[].source`)
   * into images, e.g. to map the id of a picture attached to the current chat to its bytes, or to
   * read a file path. Fetching URLs a model wrote is left to the host on purpose.
   * @default imageFromDataUrl (base64 data: URLs only)
   */
  readonly resolveImage?: ImageSourceResolver;
  /** Session of the rounds `remember` stores, e.g. the id of the current conversation. @default 'default' */
  readonly sessionId?: string;
}

/** A picture returned by a tool, for a vision model; not part of the JSON. */
export interface ToolImage {
  readonly imageId: string;
  /** A `data:` URL of the downscaled JPEG. */
  readonly url: string;
  /** @example 'image/jpeg' */
  readonly mimeType: string;
  /** The same bytes as `url`, base64 without the `data:` prefix (MCP and the AI SDK want it so). */
  readonly base64: string;
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

const TOOL_NAMES = Object.keys(TOOL_SPECS).join(', ');

/**
 * Runs `name` with `args` (the parsed JSON arguments of a tool call). Bad arguments reject with
 * `INVALID_INPUT`, whose message tells the model what to fix; an unknown tool too.
 * @example
 * const { content } = await runTool(memory, 'recall', { query: 'violin teacher' });
 */
export async function runTool(memory: ToolMemory, name: string, args: unknown, options: RunToolOptions = {}): Promise<ToolResult> {
  const input = asObject(args, name);
  switch (name as MemoryToolName) {
    case 'recall':
      return { content: await recall(memory, input, options), images: [] };
    case 'recall_by_time':
      return { content: await recallByTime(memory, input, options), images: [] };
    case 'get_images':
      return getImages(memory, input, options);
    case 'remember':
      return { content: await remember(memory, input, options), images: [] };
    case 'forget':
      return { content: await forget(memory, input), images: [] };
    default:
      throw new VmemError('INVALID_INPUT', `There is no tool "${name}"; use one of ${TOOL_NAMES}.`);
  }
}

async function recall(memory: ToolMemory, input: Record<string, unknown>, options: RunToolOptions) {
  const query = requiredString(input, 'query', 'recall');
  const source = optionalString(input, 'image', 'recall');
  const limit = optionalLimit(input, 'limit', 5, MAX_TOOL_ROUNDS);
  const image = source === undefined ? undefined : await resolveImage(source, options);
  const result = await memory.retrieve({ text: query, ...(image ? { image } : {}) }, { k: limit, aggregationK: limit, neighbours: 0 });
  const returned = new Map(result.blocks.flatMap((block) => block.rounds).map((round) => [round.id, round]));
  const rounds = result.trace
    .filter((entry) => !entry.neighbour)
    .slice(0, limit)
    .flatMap((entry) => {
      const round = returned.get(entry.roundId);
      return round ? [{ ...toolRound(round, options), confidence: rounded(entry.confidence ?? 0) }] : [];
    });
  return {
    query,
    ...(image ? { searchedWithImage: true } : {}),
    case: result.case,
    relevant: result.relevant,
    confidence: rounded(result.confidence),
    ...(result.relevant ? {} : { note: 'Nothing in memory seems to match this; say so rather than guess.' }),
    rounds,
  };
}

async function recallByTime(memory: ToolMemory, input: Record<string, unknown>, options: RunToolOptions) {
  const from = parseTime(requiredString(input, 'from', 'recall_by_time'), 'from');
  const to = parseTime(requiredString(input, 'to', 'recall_by_time'), 'to');
  if (from > to) throw new VmemError('INVALID_INPUT', '"from" is after "to"; swap them.');
  const query = optionalString(input, 'query', 'recall_by_time');
  const limit = optionalLimit(input, 'limit', 10, MAX_TOOL_ROUNDS);
  const inRange = (await memory.rounds()).filter((round) => round.timestamp >= from && round.timestamp <= to);
  let chosen: StoredRound[];
  if (query === undefined) {
    chosen = inRange.slice(0, limit);
  } else {
    const roundIds = new Set(inRange.map((round) => round.id));
    const rankings = await Promise.all(
      (['bm25', 'dense'] as const).map(async (signal) => ({
        signal,
        lane: 'text' as const,
        weight: 1,
        candidates: bestPerGroup(await memory.search({ signal, text: query, roundIds, limit: limit * 4 }), (hit) => hit.roundId, limit * 4),
      })),
    );
    const byId = new Map(inRange.map((round) => [round.id, round]));
    chosen = reciprocalRankFusion(rankings, 60)
      .slice(0, limit)
      .flatMap((fused) => byId.get(fused.key) ?? []);
  }
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    total: inRange.length,
    ...(query ? { query } : {}),
    rounds: chosen.map((round) => toolRound(round, options)),
  };
}

async function getImages(memory: ToolMemory, input: Record<string, unknown>, options: RunToolOptions): Promise<ToolResult> {
  const roundIds = stringList(input, 'roundIds', 'get_images', 1);
  const max = optionalLimit(input, 'maxImages', 3, MAX_TOOL_IMAGES);
  const unknownRoundIds: string[] = [];
  const refs: ImageRef[] = [];
  for (const id of roundIds) {
    const round = await memory.get(id);
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
    images: prepared.map((item) => toolImage(item.ref.id, item.image.url)),
  };
}

async function remember(memory: ToolMemory, input: Record<string, unknown>, options: RunToolOptions) {
  const user = optionalString(input, 'user', 'remember');
  const assistant = optionalString(input, 'assistant', 'remember');
  const sources = input.images === undefined ? [] : objectList(input, 'images', 'remember');
  const images = await Promise.all(
    sources.map(async (item, index): Promise<ImageInput> => {
      const image = await resolveImage(requiredString(item, 'source', `remember's images[${index}]`), options);
      const caption = optionalString(item, 'caption', `remember's images[${index}]`);
      return caption === undefined ? image : { ...image, caption };
    }),
  );
  const [round] = await memory.add({
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    user: { ...(user === undefined ? {} : { text: user }), ...(images.length > 0 ? { images } : {}) },
    ...(assistant === undefined ? {} : { assistant: { text: assistant } }),
  });
  return { remembered: toolRound(round!, options) };
}

async function forget(memory: ToolMemory, input: Record<string, unknown>) {
  const roundId = requiredString(input, 'roundId', 'forget');
  await memory.forget(roundId);
  return { forgotten: roundId };
}

// Mistakes in a call (bad arguments, an unknown id, an unreadable picture) the model can correct.
const MODEL_FIXABLE: ReadonlySet<VmemErrorCode> = new Set([
  'INVALID_INPUT',
  'EMPTY_QUERY',
  'EMPTY_ROUND',
  'TEXT_TOO_LONG',
  'UNKNOWN_ROUND',
  'UNKNOWN_IMAGE',
  'DUPLICATE_ROUND',
  'UNSUPPORTED_FILE',
  'IMAGE_DECODE_FAILED',
]);

/**
 * The JSON a model gets back when its tool call failed in a way it can correct (bad arguments, an
 * unknown round, an unreadable picture): `{ error: { code, message } }`. Rethrows anything else
 * (storage, encoders, a closed memory), which should stop the agent rather than reach the model.
 * @example
 * const result = await runTool(memory, name, args).then((output) => output.content, toolError);
 */
export function toolError(error: unknown): { readonly error: { readonly code: VmemErrorCode; readonly message: string } } {
  const code = errorCode(error);
  if (code === undefined || !MODEL_FIXABLE.has(code)) throw error;
  return { error: { code, message: (error as Error).message } };
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

/** Two decimals are all a model needs of a confidence. */
function rounded(value: number): number {
  return Math.round(value * 100) / 100;
}

function toolImage(imageId: string, url: string): ToolImage {
  const comma = url.indexOf(',');
  return { imageId, url, mimeType: url.slice('data:'.length, url.indexOf(';')), base64: url.slice(comma + 1) };
}

function resolveImage(source: string, options: RunToolOptions): Promise<ImageInput> {
  return (options.resolveImage ?? imageFromDataUrl)(source);
}

function snippet(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
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

/** A string argument that may be left out; an empty one counts as left out. */
function optionalString(input: Record<string, unknown>, key: string, tool: string): string | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new VmemError('INVALID_INPUT', `${tool}'s "${key}" must be a string.`);
  return value.trim() === '' ? undefined : value;
}

function optionalLimit(input: Record<string, unknown>, key: string, fallback: number, max: number): number {
  const value = input[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new VmemError('INVALID_INPUT', `"${key}" must be a whole number from 1 to ${max}.`);
  return Math.min(value, max);
}

function stringList(input: Record<string, unknown>, key: string, tool: string, min: number): string[] {
  const value = input[key];
  if (!Array.isArray(value) || value.length < min || value.length > MAX_TOOL_LIST || !value.every((item) => typeof item === 'string')) {
    throw new VmemError('INVALID_INPUT', `${tool} needs "${key}": an array of ${min} to ${MAX_TOOL_LIST} id strings from a search result.`);
  }
  return value as string[];
}

function objectList(input: Record<string, unknown>, key: string, tool: string): Record<string, unknown>[] {
  const value = input[key];
  if (!Array.isArray(value) || value.length > MAX_TOOL_LIST) {
    throw new VmemError('INVALID_INPUT', `${tool}'s "${key}" must be an array of at most ${MAX_TOOL_LIST} objects.`);
  }
  return value.map((item, index) => asObject(item, `${tool}'s ${key}[${index}]`));
}
