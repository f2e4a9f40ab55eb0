import type { BenchConversation } from './dataset.js';

/*
 * The temporal test set: questions that name a time the way people do ("yesterday", "last
 * weekend", "3 weeks ago", "in March"), built from the dev dialogues' own timestamps. For a session
 * on a given day, `now` is set so that the phrase means that day (or its weekend, week, month,
 * year), and the question is asked with that `now`, of the rounds said before it (a filter). Two
 * sorts per phrase kind:
 * - open questions ("What did we talk about last weekend?"): right when the first hit falls in the
 *   span the phrase means;
 * - content questions: a dev question whose evidence lies in that one session, led by the phrase
 *   ("Last weekend, which cake did Maya bake?"): top-1 when the first hit is a gold round, and allClue.
 */

const DAY = 86_400_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six'];
const OPEN_TEMPLATES = ['What did we talk about {p}?', 'What did I tell you {p}?', 'What was I up to {p}?', 'Remind me what I said {p}.'];

/** The phrase kinds of the set, as the issue lists them. */
export const TEMPORAL_KINDS = [
  'yesterday',
  'last weekend',
  'this/last weekday',
  'N days ago',
  'N weeks ago',
  'N months ago',
  'last month',
  'last year',
  'in <month>',
  'this morning',
  'the week before last',
] as const;
export type TemporalKind = (typeof TEMPORAL_KINDS)[number];

/** One question of the set. */
export interface TemporalQuestion {
  readonly conversationId: string;
  readonly kind: TemporalKind;
  readonly text: string;
  /** Epoch ms the question is asked at. */
  readonly now: number;
  /** The span the phrase means, epoch ms, end exclusive. */
  readonly span: { readonly start: number; readonly end: number };
  /** Content questions: the gold rounds (all in the target session). */
  readonly goldRounds?: readonly string[];
}

interface Phrasing {
  readonly phrase: string;
  readonly now: number;
  readonly span: { readonly start: number; readonly end: number };
}

const midnight = (ms: number) => Math.floor(ms / DAY) * DAY;
/** Monday 00:00 UTC of the week holding `ms`. */
const monday = (ms: number) => midnight(ms) - ((new Date(ms).getUTCDay() + 6) % 7) * DAY;
const monthStart = (ms: number, add = 0) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth() + add, 1);

/** How each kind is said of a session held at `at` (epoch ms), and when it is asked; undefined where the kind does not fit that day. */
function phrasingsOf(kind: TemporalKind, at: number, index: number): Phrasing | undefined {
  const day = midnight(at);
  const weekday = new Date(day).getUTCDay();
  const asked = (ms: number) => ms + 10 * 3_600_000;
  switch (kind) {
    case 'yesterday':
      return { phrase: 'yesterday', now: asked(day + DAY), span: { start: day, end: day + DAY } };
    case 'last weekend': {
      if (weekday !== 0 && weekday !== 6) return undefined;
      const saturday = monday(day) + 5 * DAY;
      // Asked on the Tuesday after.
      return { phrase: 'last weekend', now: asked(saturday + 3 * DAY), span: { start: saturday, end: saturday + 2 * DAY } };
    }
    case 'this/last weekday': {
      // "this Monday" two days later in the same week; "last Monday" later, on the week's Sunday at most.
      const name = WEEKDAYS[weekday]!;
      if (index % 2 === 0 && weekday >= 1 && weekday <= 5) return { phrase: `this ${name}`, now: asked(day + 2 * DAY), span: { start: day, end: day + DAY } };
      return { phrase: `last ${name}`, now: asked(day + 4 * DAY), span: { start: day, end: day + DAY } };
    }
    case 'N days ago': {
      const n = 2 + (index % 5);
      return { phrase: `${index % 2 === 0 ? NUMBER_WORDS[n] : n} days ago`, now: asked(day + n * DAY), span: { start: day, end: day + DAY } };
    }
    case 'N weeks ago': {
      const n = 2 + (index % 2);
      return { phrase: `${index % 2 === 0 ? NUMBER_WORDS[n] : n} weeks ago`, now: asked(day + 7 * n * DAY), span: { start: monday(day), end: monday(day) + 7 * DAY } };
    }
    case 'N months ago': {
      const n = 2 + (index % 2);
      const date = new Date(day);
      return { phrase: `${n} months ago`, now: asked(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + n, Math.min(date.getUTCDate(), 28))), span: { start: monthStart(day), end: monthStart(day, 1) } };
    }
    case 'last month':
      return { phrase: 'last month', now: asked(monthStart(day, 1) + 14 * DAY), span: { start: monthStart(day), end: monthStart(day, 1) } };
    case 'last year': {
      const year = new Date(day).getUTCFullYear();
      return { phrase: 'last year', now: asked(Date.UTC(year + 1, 5, 15)), span: { start: Date.UTC(year, 0, 1), end: Date.UTC(year + 1, 0, 1) } };
    }
    case 'in <month>':
      return { phrase: `in ${MONTHS[new Date(day).getUTCMonth()]}`, now: asked(monthStart(day, 3) + 9 * DAY), span: { start: monthStart(day), end: monthStart(day, 1) } };
    case 'this morning':
      if (at - day >= 12 * 3_600_000) return undefined;
      return { phrase: 'this morning', now: day + 15 * 3_600_000, span: { start: day, end: day + 12 * 3_600_000 } };
    case 'the week before last':
      return { phrase: 'the week before last', now: asked(monday(day) + 16 * DAY), span: { start: monday(day), end: monday(day) + 7 * DAY } };
  }
}

/** Questions that already name a time or ask when are left out of the content questions. */
const NAMES_A_TIME = /\b(?:when|date|day|week|month|year|ago|yesterday|today|morning|before|after|first|last|earlier|later|(?:19|20)\d{2}|january|february|march|april|may|june|july|august|september|october|november|december)\b/i;

/**
 * The temporal set of some conversations: per kind, for every session the kind fits (at most
 * `perConversation` each), one open question and, when a question's evidence lies in that session
 * alone, one content question. A session counts only when no other session falls in the span, so
 * the right rounds are that session's.
 */
export function temporalQuestions(conversations: readonly BenchConversation[], perConversation = 3): TemporalQuestion[] {
  const out: TemporalQuestion[] = [];
  for (const conversation of conversations) {
    const sessions = new Map<string, number>();
    for (const round of conversation.rounds) {
      const at = typeof round.timestamp === 'number' ? round.timestamp : Date.parse(String(round.timestamp));
      if (!sessions.has(round.sessionId ?? 'default')) sessions.set(round.sessionId ?? 'default', at);
    }
    const sessionOf = new Map(conversation.rounds.map((round) => [round.id!, round.sessionId ?? 'default']));
    for (const kind of TEMPORAL_KINDS) {
      let made = 0;
      for (const [sessionId, at] of sessions) {
        if (made >= perConversation) break;
        const phrasing = phrasingsOf(kind, at, made);
        if (!phrasing) continue;
        // The phrase must pick out this session alone. (Rounds after `now` are filtered out when asked.)
        const others = [...sessions].filter(([id, when]) => id !== sessionId && when >= phrasing.span.start && when < phrasing.span.end);
        if (others.length > 0) continue;
        const template = OPEN_TEMPLATES[out.length % OPEN_TEMPLATES.length]!;
        out.push({ conversationId: conversation.id, kind, text: template.replace('{p}', phrasing.phrase), now: phrasing.now, span: phrasing.span });
        const question = conversation.questions.find(
          (q) => q.query.image === undefined && !NAMES_A_TIME.test(q.query.text ?? '') && q.goldRounds.every((roundId) => sessionOf.get(roundId) === sessionId),
        );
        if (question?.query.text) {
          const lead = phrasing.phrase[0]!.toUpperCase() + phrasing.phrase.slice(1);
          const text = question.query.text.trim();
          out.push({ conversationId: conversation.id, kind, text: `${lead}, ${text[0]!.toLowerCase()}${text.slice(1)}`, now: phrasing.now, span: phrasing.span, goldRounds: question.goldRounds });
        }
        made++;
      }
    }
  }
  return out;
}
