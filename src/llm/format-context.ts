/** Renders retrieved memory as compact text for a prompt. */
import { VmemError } from '../errors.js';
import type { Block, StoredRound, StoredTurn } from '../types.js';

/** Options of `formatContext` and of the date helpers. */
export interface FormatContextOptions {
  /**
   * IANA time zone dates and times are shown in. Pass the user's zone
   * (`Intl.DateTimeFormat().resolvedOptions().timeZone`) so "this morning" lines up.
   * @default 'UTC'
   */
  readonly timeZone?: string;
}

/** Shown instead of memory when retrieval found nothing. */
export const EMPTY_CONTEXT = '(Nothing relevant was found in memory.)';

/**
 * Formats retrieval blocks as text: one header per block with its session and dates, then per round
 * a `[date time]` line, `User: …` / `Assistant: …` lines, and one line per image with its id and
 * caption. Blocks keep the order given; rounds keep their time order.
 * @example
 * formatContext(result.blocks)
 * // ### Session trip · 2024-05-01
 * // [2024-05-01 14:03]
 * // User: Look at my new bike [Image: a red bicycle]
 * // Image img-1 (from user): a red bicycle
 * // Assistant: Nice colour!
 */
export function formatContext(blocks: readonly Block[], options: FormatContextOptions = {}): string {
  const timeZone = options.timeZone ?? 'UTC';
  const parts = blocks.filter((block) => block.rounds.length > 0).map((block) => formatBlock(block, timeZone));
  return parts.length === 0 ? EMPTY_CONTEXT : parts.join('\n\n');
}

function formatBlock(block: Block, timeZone: string): string {
  const first = block.rounds[0] as StoredRound;
  const last = block.rounds[block.rounds.length - 1] as StoredRound;
  const firstDay = formatDate(first.timestamp, timeZone);
  const lastDay = formatDate(last.timestamp, timeZone);
  const days = firstDay === lastDay ? firstDay : `${firstDay} to ${lastDay}`;
  const lines = [`### Session ${block.sessionId} · ${days}`];
  for (const round of block.rounds) {
    lines.push(`[${formatDateTime(round.timestamp, timeZone)}]`);
    lines.push(...turnLines('User', 'user', round.user));
    lines.push(...turnLines('Assistant', 'assistant', round.assistant));
  }
  return lines.join('\n');
}

function turnLines(label: string, role: string, turn: StoredTurn): string[] {
  const lines: string[] = [];
  const text = oneLine(turn.text);
  if (text !== '') lines.push(`${label}: ${text}`);
  for (const image of turn.images) {
    const caption = image.caption === undefined || image.caption.trim() === '' ? '(no caption)' : oneLine(image.caption);
    lines.push(`Image ${image.id} (from ${role}): ${caption}`);
  }
  return lines;
}

// Line breaks inside a turn would read as new speaker lines; keep each turn on one line.
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** `YYYY-MM-DD` of an epoch-ms time in `timeZone`. */
export function formatDate(time: number | Date, timeZone = 'UTC'): string {
  const p = dateParts(time, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** `YYYY-MM-DD HH:mm` (24-hour) of an epoch-ms time in `timeZone`. */
export function formatDateTime(time: number | Date, timeZone = 'UTC'): string {
  const p = dateParts(time, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

function dateParts(time: number | Date, timeZone: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute', string> {
  const parts = Object.fromEntries(formatterFor(timeZone).formatToParts(time).map((part) => [part.type, part.value]));
  return {
    year: parts.year ?? '',
    month: parts.month ?? '',
    day: parts.day ?? '',
    hour: parts.hour ?? '',
    minute: parts.minute ?? '',
  };
}

// Building an Intl formatter is slow; a context can hold hundreds of rounds.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
    } catch (error) {
      throw new VmemError('INVALID_INPUT', `Unknown time zone ${JSON.stringify(timeZone)}; use an IANA name such as 'Europe/Paris' or 'UTC'.`, {
        cause: error,
      });
    }
    formatters.set(timeZone, format);
  }
  return format;
}
