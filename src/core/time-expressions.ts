import { casual, type Component, type ParsedResult } from 'chrono-node/en';

/*
 * Times a question names, read into the spans a person means: "yesterday", "last weekend" (that
 * Saturday and Sunday), "this Monday", "3 weeks ago" (that week), "last month", "in March" (the
 * memory's own March), "this morning", "the week before last", "on 13 October, 2023", "in early
 * August 2024". chrono-node finds and reads the dates; this module turns each into a span of the
 * grain the words name, reads it as the past (a memory holds what was said), and adds what chrono
 * does not read: parts of a month, a bare year, "the week before last", and the vague "recently"
 * and "a while ago", which get soft windows. Days are UTC days, as stored timestamps are read.
 */

/** A span of time a question refers to, epoch ms, `start` inclusive, `end` exclusive. */
export interface TimeSpan {
  readonly start: number;
  readonly end: number;
  /** The words it was read from, for traces. */
  readonly text: string;
  /** A vague phrase ("recently", "a while ago"): its window is a guess, and preferred less. */
  readonly soft?: boolean;
}

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

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MONTH = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** "early", "mid", "late", "the first half of", "the end of"…: a part of a month. */
const PART_WORDS = String.raw`(early|mid(?:dle)?|late|(?:the\s+)?(?:beginning|start|end|middle)\s+of|(?:the\s+)?(?:first|second|last)\s+(?:half|week|weekend)\s+of)[\s-]+`;
const MONTH_PART = new RegExp(String.raw`\b${PART_WORDS}${MONTH}\b\.?(?:(?:\s*,\s*|\s+(?:of\s+)?)((?:19|20)\d{2})\b)?`, 'gi');
const BARE_YEAR = /\b(?:in|during|of|since|throughout|back\s+in)\s+((?:19|20)\d{2})\b(?![-/]\d)/gi;
const WEEK_BEFORE_LAST = /\b(?:the\s+)?week\s+before\s+last\b/gi;
const THIS_WEEK = /\b(?:this|the\s+current)\s+week\b/gi;
/** Vague phrases and the window each gets, in days before today: [from, to). */
const VAGUE: readonly [RegExp, number, number][] = [
  [/\b(?:recently|lately|the\s+other\s+day|in\s+the\s+last\s+few\s+days|not\s+long\s+ago|a\s+few\s+days\s+ago|just\s+now)\b/gi, 14, 0],
  [/\b(?:a\s+while\s+(?:ago|back)|some\s+time\s+ago|a\s+few\s+(?:weeks|months)\s+ago|a\s+couple\s+of\s+(?:weeks|months)\s+ago)\b/gi, 183, 7],
];
/** Words that name the future: a span they name is not moved into the past. */
const FUTURE = /\b(?:next|tomorrow|upcoming|coming|will|going\s+to|gonna|plan(?:ning)?\s+to)\b/i;

/** Parts of a day, in UTC hours: [from, to). */
const DAY_PARTS: readonly [RegExp, number, number][] = [
  [/\bmorning\b/i, 0, 12],
  [/\b(?:afternoon|noon|lunch\s*time)\b/i, 12, 18],
  [/\bevening\b/i, 17, 24],
  [/\b(?:night|tonight)\b/i, 18, 30],
];

interface Found {
  readonly at: number;
  readonly length: number;
  readonly span: TimeSpan;
}

/**
 * Every time span a question names, in the order they appear; overlapping mentions are read once.
 * @example
 * timeSpansIn('What did I do last weekend?', { now: Date.UTC(2026, 11, 1), hasRoundsIn }) // Sat 28 – Sun 29 Nov 2026
 */
export function timeSpansIn(question: string, context: TimeContext): TimeSpan[] {
  const text = question.normalize('NFKC');
  const found: Found[] = [];
  const claim = (at: number, matched: string, span: TimeSpan | undefined) => {
    if (!span || span.end <= span.start || found.some((other) => at < other.at + other.length && at + matched.length > other.at)) return;
    found.push({ at, length: matched.length, span });
  };
  const today = startOfDay(context.now);
  for (const match of text.matchAll(MONTH_PART)) {
    const month = monthIndex(match[2]!);
    const year = match[3] === undefined ? undefined : Number(match[3]);
    claim(match.index, match[0], year === undefined ? inLatestYear(context, (y) => monthPartSpan(y, month, match[1]!, match[0])) : monthPartSpan(year, month, match[1]!, match[0]));
  }
  for (const match of text.matchAll(WEEK_BEFORE_LAST)) {
    const start = startOfWeek(today) - 14 * DAY;
    claim(match.index, match[0], { start, end: start + 7 * DAY, text: match[0] });
  }
  for (const match of text.matchAll(THIS_WEEK)) claim(match.index, match[0], { start: startOfWeek(today), end: today + DAY, text: match[0] });
  for (const [pattern, from, to] of VAGUE) {
    for (const match of text.matchAll(pattern)) claim(match.index, match[0], { start: today - from * DAY, end: today - to * DAY + DAY, text: match[0], soft: true });
  }
  for (const match of text.matchAll(BARE_YEAR)) {
    const year = Number(match[1]);
    claim(match.index, match[0], { start: Date.UTC(year, 0, 1), end: Date.UTC(year + 1, 0, 1), text: match[0] });
  }
  const future = FUTURE.test(text);
  for (const result of casual.parse(text, { instant: new Date(context.now), timezone: 0 }, { forwardDate: false })) {
    // "Where does she live now?" asks what holds today, not what was said today.
    if (/^(?:right\s+)?now$/i.test(result.text.trim())) continue;
    claim(result.index, result.text, spanOf(result, context, today, future));
  }
  return found.sort((a, b) => a.at - b.at).map((entry) => entry.span);
}

/**
 * Reads a phrase twice and throws the spans away: the date parser's first two uses compile its
 * patterns (V8 compiles a regular expression to machine code on its second run) and take hundreds of
 * ms where any later one takes a fraction of one, so a memory does this while it waits for its
 * storage, not in the first retrieval a user waits for.
 */
export function warmTimeExpressions(): void {
  for (let run = 0; run < 2; run++) timeSpansIn('What did I do last weekend, 3 weeks ago, or on 13 October 2023 in the morning?', { now: 0, hasRoundsIn: () => false });
}

/** The span a chrono reading means: its grain comes from the words ("weekend", "week", "month") and from what it knows. */
function spanOf(result: ParsedResult, context: TimeContext, today: number, future: boolean): TimeSpan | undefined {
  const words = result.text.toLowerCase();
  const start = result.start;
  const known = (component: Component) => start.isCertain(component);
  const text = result.text;
  // A bare clock time ("at 5") names no day.
  if (!known('day') && !known('weekday') && !known('month') && !known('year') && !DAY_PARTS.some(([pattern]) => pattern.test(words)) && !/\b(?:today|now)\b/.test(words)) return undefined;
  const day = dayOf(start);
  const past = (span: TimeSpan | undefined, stepBack: (span: TimeSpan) => TimeSpan | undefined): TimeSpan | undefined =>
    span && !future && span.start > today ? stepBack(span) : span;

  if (result.end && known('day')) {
    // "From May 3 to May 5, 2025": the year may be said once, at the end.
    const length = dayOf(result.end) + DAY - day;
    const year = start.isCertain('year') ? start.get('year') : result.end.isCertain('year') ? result.end.get('year') : undefined;
    const rangeIn = (y: number): TimeSpan => {
      const first = Date.UTC(y, start.get('month')! - 1, start.get('day')!);
      return { start: first, end: first + length, text };
    };
    return year === undefined || year === null ? inLatestYear(context, rangeIn) : rangeIn(year);
  }
  if (/\bweekend\b/.test(words)) {
    // The weekend of the day chrono read, or, read as the past, the last one that has begun.
    const saturday = startOfWeek(day) + 5 * DAY;
    const span = { start: saturday, end: saturday + 2 * DAY, text };
    return past(span, (s) => ({ ...s, start: s.start - 7 * DAY, end: s.end - 7 * DAY }));
  }
  if (/\bweeks?\b/.test(words)) {
    const monday = startOfWeek(day);
    // "This week" ends today; "last week" and "3 weeks ago" are whole weeks, Monday to Sunday.
    return /\bthis\s+week\b/.test(words) ? { start: monday, end: today + DAY, text } : { start: monday, end: monday + 7 * DAY, text };
  }
  // A weekday alone ("this Monday", "on Friday evening"): read as the past, the last one not after today.
  const weekdayOnly = known('weekday') && !known('day');
  const theDay = weekdayOnly && !future && day > today ? day - 7 * DAY : day;
  const part = DAY_PARTS.find(([pattern]) => pattern.test(words));
  if (part && !/\bdays?\b/.test(words)) {
    const base = known('day') || known('weekday') || /\btonight\b/.test(words) ? theDay : today;
    return { start: base + part[1] * HOUR, end: base + part[2] * HOUR, text };
  }
  if (weekdayOnly) return { start: theDay, end: theDay + DAY, text };
  if (known('day') || /\b(?:today|yesterday)\b/.test(words)) {
    if (known('year')) return { start: day, end: day + DAY, text };
    return withYear(context, start, (year) => {
      const date = Date.UTC(year, start.get('month')! - 1, start.get('day')!);
      return new Date(date).getUTCDate() === start.get('day') ? { start: date, end: date + DAY, text } : undefined;
    });
  }
  if (known('month')) {
    const monthSpan = (year: number): TimeSpan => {
      const first = Date.UTC(year, start.get('month')! - 1, 1);
      const next = Date.UTC(year, start.get('month')!, 1);
      // "This month" ends today.
      return { start: first, end: /\bthis\s+month\b/.test(words) ? Math.min(next, today + DAY) : next, text };
    };
    return known('year') ? monthSpan(start.get('year')!) : withYear(context, start, monthSpan);
  }
  if (known('year')) {
    const year = start.get('year')!;
    return { start: Date.UTC(year, 0, 1), end: /\bthis\s+year\b/.test(words) ? today + DAY : Date.UTC(year + 1, 0, 1), text };
  }
  return undefined;
}

/** A span in the year chrono knew, or else the memory's own year for it. */
function withYear(context: TimeContext, start: ParsedResult['start'], spanIn: (year: number) => TimeSpan | undefined): TimeSpan | undefined {
  return start.isCertain('year') ? spanIn(start.get('year')!) : inLatestYear(context, spanIn);
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

function monthIndex(name: string): number {
  return MONTHS.indexOf(name.toLowerCase().slice(0, 3));
}

/** A part of a month: early = 1–10, mid = 11–20, late = 21–end, halves, first and last weeks. */
function monthPartSpan(year: number, month: number, part: string, text: string): TimeSpan | undefined {
  if (month < 0) return undefined;
  const start = Date.UTC(year, month, 1);
  const end = Date.UTC(year, month + 1, 1);
  const words = part.toLowerCase();
  const days = (from: number, to?: number) => ({ start: start + (from - 1) * DAY, end: to === undefined ? end : start + to * DAY, text });
  if (/^early|beginning|start|first\s+week|first\s+weekend/.test(words)) return /week/.test(words) ? days(1, 7) : days(1, 10);
  if (/^mid|middle/.test(words)) return days(11, 20);
  if (/^late|end|last\s+week|last\s+weekend/.test(words)) return /week/.test(words) ? { start: end - 7 * DAY, end, text } : days(21);
  if (/first\s+half/.test(words)) return days(1, 15);
  if (/(?:second|last)\s+half/.test(words)) return days(16);
  return { start, end, text };
}

/** Midnight (UTC) of the day chrono read. */
function dayOf(components: ParsedResult['start']): number {
  return Date.UTC(components.get('year')!, components.get('month')! - 1, components.get('day')!);
}

function startOfDay(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

/** The Monday (UTC midnight) of the week holding `day`. */
function startOfWeek(day: number): number {
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  return startOfDay(day) - weekday * DAY;
}
