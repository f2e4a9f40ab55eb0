/*
 * Dates a question names, read into time ranges: "on 13 October, 2023", "in July 2024",
 * "mid-October", "2024-07-07", "in 2023", "yesterday", "last week". General English patterns only;
 * no phrase of any one data set belongs here. Ranges are in UTC days, as stored timestamps are read.
 */

/** A span of time a question refers to, epoch ms, `start` inclusive, `end` exclusive. */
export interface TimeSpan {
  readonly start: number;
  readonly end: number;
  /** The words it was read from, for traces. */
  readonly text: string;
}

const DAY = 86_400_000;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`;
const DAY_NUMBER = String.raw`(\d{1,2})(?:st|nd|rd|th)?`;
const YEAR = String.raw`((?:19|20)\d{2})`;
/** "early", "mid", "late", "the first half of", "the end of"…: a part of a month. */
const PART_WORDS = String.raw`(early|mid(?:dle)?|late|(?:the\s+)?(?:beginning|start|end|middle)\s+of|(?:the\s+)?(?:first|second|last)\s+(?:half|week|weekend)\s+of)[\s-]+`;
const PART = `(?:${PART_WORDS})?`;

const ISO_DATE = /\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b/g;
const MONTH_DAY_YEAR = new RegExp(String.raw`\b${MONTH}\.?\s+${DAY_NUMBER}(?:\s*,\s*|\s+)${YEAR}\b`, 'gi');
const DAY_MONTH_YEAR = new RegExp(String.raw`\b${DAY_NUMBER}\s+(?:of\s+)?${MONTH}\.?(?:\s*,\s*|\s+)${YEAR}\b`, 'gi');
const MONTH_DAY = new RegExp(String.raw`\b(?:on\s+)${MONTH}\.?\s+${DAY_NUMBER}\b(?!\s*,?\s*(?:19|20)\d{2})`, 'gi');
const PART_MONTH_YEAR = new RegExp(String.raw`\b${PART}${MONTH}\.?(?:\s*,\s*|\s+(?:of\s+)?)${YEAR}\b`, 'gi');
// A month without a year needs a preposition or a part ("in June", "mid-October"): a bare "may" is a verb.
const PART_MONTH = new RegExp(
  String.raw`\b(?:(?:in|during|of|from|since|until|by|around|at)\s+${PART}|${PART_WORDS})${MONTH}\b(?!\.?\s*,?\s*(?:of\s+)?\d)`,
  'gi',
);
const BARE_YEAR = /\b(?:in|during|of|since|throughout)\s+((?:19|20)\d{2})\b(?![-/]\d)/gi;
const RELATIVE = /\b(today|yesterday|last\s+(?:week|weekend|month|year)|this\s+(?:week|month|year)|(\d+|a|an|one|two|three|four|five|six)\s+(days?|weeks?|months?|years?)\s+ago)\b/gi;

const SMALL_NUMBERS: Readonly<Record<string, number>> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };

/** What the reader needs besides the question: when "now" is, and which years the memory spans. */
export interface TimeContext {
  /** "Today", for "yesterday" and "last week". */
  readonly now: number;
  /**
   * Picks the year of a month named without one ("in mid-October"): the latest year whose span
   * holds a stored round, else the latest year not after `now`.
   */
  readonly hasRoundsIn: (start: number, end: number) => boolean;
}

/**
 * Every time span a question names, in the order they appear; overlapping mentions (a month inside a
 * full date) are read once, as the most specific.
 * @example
 * timeSpansIn('What did Nate cook on 9 November, 2022?', context) // one span: 2022-11-09, one day
 */
export function timeSpansIn(question: string, context: TimeContext): TimeSpan[] {
  const text = question.normalize('NFKC');
  const found: { at: number; length: number; span: TimeSpan }[] = [];
  const taken: [number, number][] = [];
  const claim = (match: RegExpExecArray, span: TimeSpan | undefined) => {
    const from = match.index;
    const to = from + match[0].length;
    if (!span || taken.some(([a, b]) => from < b && to > a)) return;
    taken.push([from, to]);
    found.push({ at: from, length: match[0].length, span });
  };
  // Most specific first, so "13 October 2023" is not also read as "October 2023".
  for (const match of text.matchAll(ISO_DATE)) claim(match, daySpan(Number(match[1]), Number(match[2]) - 1, Number(match[3]), match[0]));
  for (const match of text.matchAll(MONTH_DAY_YEAR)) claim(match, daySpan(Number(match[3]), monthIndex(match[1]!), Number(match[2]), match[0]));
  for (const match of text.matchAll(DAY_MONTH_YEAR)) claim(match, daySpan(Number(match[3]), monthIndex(match[2]!), Number(match[1]), match[0]));
  for (const match of text.matchAll(PART_MONTH_YEAR)) claim(match, monthPartSpan(Number(match[3]), monthIndex(match[2]!), match[1], match[0]));
  for (const match of text.matchAll(MONTH_DAY)) {
    const month = monthIndex(match[1]!);
    const day = Number(match[2]);
    claim(match, inLatestYear(context, (year) => daySpan(year, month, day, match[0])));
  }
  for (const match of text.matchAll(PART_MONTH)) {
    const month = monthIndex(match[3]!);
    const part = match[1] ?? match[2];
    claim(match, inLatestYear(context, (year) => monthPartSpan(year, month, part, match[0])));
  }
  for (const match of text.matchAll(BARE_YEAR)) {
    const year = Number(match[1]);
    claim(match, { start: Date.UTC(year, 0, 1), end: Date.UTC(year + 1, 0, 1), text: match[0] });
  }
  for (const match of text.matchAll(RELATIVE)) claim(match, relativeSpan(match, context.now));
  return found.sort((a, b) => a.at - b.at).map((entry) => entry.span);
}

function monthIndex(name: string): number {
  const prefix = name.toLowerCase().slice(0, 3);
  return MONTHS.findIndex((month) => month.startsWith(prefix));
}

function daySpan(year: number, month: number, day: number, text: string): TimeSpan | undefined {
  const start = Date.UTC(year, month, day);
  // Date.UTC rolls 31 June over into July; a day that does not exist is no date.
  if (month < 0 || new Date(start).getUTCDate() !== day) return undefined;
  return { start, end: start + DAY, text };
}

/** A month, or the part of it a word names: early = 1–10, mid = 11–20, late = 21–end, halves, weeks. */
function monthPartSpan(year: number, month: number, part: string | undefined, text: string): TimeSpan | undefined {
  if (month < 0) return undefined;
  const start = Date.UTC(year, month, 1);
  const end = Date.UTC(year, month + 1, 1);
  const words = (part ?? '').toLowerCase();
  const days = (from: number, to?: number) => ({ start: start + (from - 1) * DAY, end: to === undefined ? end : start + to * DAY, text });
  if (words === '') return { start, end, text };
  if (/^early|beginning|start|first\s+week|first\s+weekend/.test(words)) return /week/.test(words) ? days(1, 7) : days(1, 10);
  if (/^mid|middle/.test(words)) return days(11, 20);
  if (/^late|end|last\s+week|last\s+weekend/.test(words)) return /week/.test(words) ? { start: end - 7 * DAY, end, text } : days(21);
  if (/first\s+half/.test(words)) return days(1, 15);
  if (/(?:second|last)\s+half/.test(words)) return days(16);
  return { start, end, text };
}

function inLatestYear(context: TimeContext, spanIn: (year: number) => TimeSpan | undefined): TimeSpan | undefined {
  const nowYear = new Date(context.now).getUTCFullYear();
  // The memory's own years first: a chat log from 2023 read in 2026 means its own October.
  for (let year = nowYear; year >= nowYear - 30; year--) {
    const span = spanIn(year);
    if (span && span.start <= context.now && context.hasRoundsIn(span.start, span.end)) return span;
  }
  for (let year = nowYear; year >= nowYear - 1; year--) {
    const span = spanIn(year);
    if (span && span.start <= context.now) return span;
  }
  return undefined;
}

function relativeSpan(match: RegExpExecArray, now: number): TimeSpan {
  const today = Math.floor(now / DAY) * DAY;
  const words = match[1]!.toLowerCase().replace(/\s+/g, ' ');
  const text = match[0];
  if (words === 'today') return { start: today, end: today + DAY, text };
  if (words === 'yesterday') return { start: today - DAY, end: today, text };
  if (words === 'this week') return { start: today - 6 * DAY, end: today + DAY, text };
  if (words === 'last week' || words === 'last weekend') return { start: today - 13 * DAY, end: today - 6 * DAY, text };
  const date = new Date(today);
  if (words === 'this month') return { start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), end: today + DAY, text };
  if (words === 'last month') return { start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 1, 1), end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), text };
  if (words === 'this year') return { start: Date.UTC(date.getUTCFullYear(), 0, 1), end: today + DAY, text };
  if (words === 'last year') return { start: Date.UTC(date.getUTCFullYear() - 1, 0, 1), end: Date.UTC(date.getUTCFullYear(), 0, 1), text };
  // "3 weeks ago": that week, with a day of slack on each side.
  const count = SMALL_NUMBERS[match[2]!.toLowerCase()] ?? Number(match[2]);
  const unit = match[3]!.toLowerCase().replace(/s$/, '');
  const unitDays = unit === 'day' ? 1 : unit === 'week' ? 7 : unit === 'month' ? 30 : 365;
  const centre = today - count * unitDays * DAY;
  const halfWidth = Math.max(1, Math.round(unitDays / 2)) * DAY;
  return { start: centre - halfWidth, end: centre + halfWidth + DAY, text };
}
