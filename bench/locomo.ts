import { VmemError, type RoundInput, type TurnInput } from 'vmem';
import { countExcluded, emptyCounts, type BenchQuestion, type EvidenceIdCounts, type ParsedConversation } from './dataset.js';
import { asAnswer, asArray, asObject, asString, optionalString, type Where } from './json-shape.js';

/** LoCoMo's scored categories by number; 5 (adversarial) has no answer and is excluded. */
export const LOCOMO_CATEGORIES: Readonly<Record<number, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const SESSION_DATE = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i;
const DIA_ID = /^D\d+:\d+$/;

/**
 * A LoCoMo session date such as `1:56 pm on 8 May, 2023` → epoch ms (read as UTC).
 * Rejects anything else, naming `where`.
 */
export function parseLocomoDate(text: string, where: Where): number {
  const match = SESSION_DATE.exec(text.trim());
  const month = match ? MONTHS.indexOf((match[5] as string).toLowerCase()) : -1;
  const hour12 = match ? Number(match[1]) : Number.NaN;
  const minute = match ? Number(match[2]) : Number.NaN;
  const day = match ? Number(match[4]) : Number.NaN;
  if (!match || month < 0 || hour12 < 1 || hour12 > 12 || minute > 59 || day < 1 || day > 31) {
    throw new VmemError('INVALID_INPUT', `${where} is "${text}", not a date like "1:56 pm on 8 May, 2023".`);
  }
  // 12 am is midnight and 12 pm is noon.
  const hour = (hour12 % 12) + ((match[3] as string).toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(match[6]), month, day, hour, minute);
}

/** One line of a LoCoMo session. */
export interface LocomoTurn {
  readonly speaker: string;
  readonly diaId: string;
  readonly text: string;
  /** BLIP caption of the image the speaker shared, when they shared one. */
  readonly imageCaption?: string;
}

/** Turns grouped into a round: the first speaker maps to `user`, the replier to `assistant`. */
export interface LocomoRoundTurns {
  readonly first: LocomoTurn;
  readonly reply?: LocomoTurn;
}

/**
 * Groups one session's turns into rounds. A round starts at a turn and takes the next turn when the
 * other speaker says it; otherwise (a second turn by the same speaker, or the session's last turn)
 * the round has no reply and the next round starts at the following turn.
 */
export function pairTurnsIntoRounds(turns: readonly LocomoTurn[]): LocomoRoundTurns[] {
  const rounds: LocomoRoundTurns[] = [];
  for (let i = 0; i < turns.length; ) {
    const first = turns[i] as LocomoTurn;
    const next = turns[i + 1];
    if (next !== undefined && next.speaker !== first.speaker) {
      rounds.push({ first, reply: next });
      i += 2;
    } else {
      rounds.push({ first });
      i += 1;
    }
  }
  return rounds;
}

/** The id of a round built from its turns: `D1:3+D1:4`, or `D1:5` for a round without a reply. */
export function locomoRoundId(round: LocomoRoundTurns): string {
  return round.reply ? `${round.first.diaId}+${round.reply.diaId}` : round.first.diaId;
}

/**
 * Maps a question's `evidence` entries to round ids, in order and without repeats. An entry holding
 * several ids (`"D8:6; D9:17"`) counts as those ids. Malformed ids and ids of turns the conversation
 * does not have are skipped and added to `counts`.
 */
export function mapEvidenceToRounds(evidence: readonly string[], roundOfDiaId: ReadonlyMap<string, string>, counts: EvidenceIdCounts): string[] {
  const rounds: string[] = [];
  for (const id of evidence.flatMap((entry) => entry.split(/[;,\s]+/)).filter((id) => id !== '')) {
    counts.total += 1;
    if (!DIA_ID.test(id)) {
      counts.malformed += 1;
      continue;
    }
    const roundId = roundOfDiaId.get(id);
    if (roundId === undefined) counts.missing += 1;
    else if (!rounds.includes(roundId)) rounds.push(roundId);
  }
  return rounds;
}

/** Why a LoCoMo question is left out, by reason. */
export const LOCOMO_EXCLUDED = {
  adversarial: 'adversarial (category 5)',
  unknownCategory: 'unknownCategory',
  noEvidence: 'noValidEvidence',
} as const;

/**
 * Converts a LoCoMo file (an array of conversations) into one conversation per `sample_id`.
 * Rounds come from {@link pairTurnsIntoRounds}; each turn's text keeps its speaker's name
 * (`Caroline: …`) because questions name people. Image turns get a caption-only image from
 * `blip_caption`. Every round of a session carries the session's date.
 */
export function parseLocomoFile(path: string, json: unknown): ParsedConversation[] {
  // Not node:path's basename: the demo runs this parser in the browser too.
  const file = path.replace(/^.*[\\/]/, '');
  return asArray(json, file).map((raw, index) => parseConversation(raw, `${file}[${index}]`));
}

function parseConversation(raw: unknown, where: Where): ParsedConversation {
  const sample = asObject(raw, where);
  const id = asString(sample['sample_id'], `${where}.sample_id`);
  const conversation = asObject(sample['conversation'], `${where}.conversation`);
  const rounds: RoundInput[] = [];
  const roundOfDiaId = new Map<string, string>();
  for (const key of sessionKeys(conversation)) {
    const sessionWhere = `${where}.conversation.${key}`;
    const timestamp = parseLocomoDate(asString(conversation[`${key}_date_time`], `${sessionWhere}_date_time`), `${sessionWhere}_date_time`);
    const turns = asArray(conversation[key], sessionWhere).map((turn, t) => parseTurn(turn, `${sessionWhere}[${t}]`));
    for (const pair of pairTurnsIntoRounds(turns)) {
      const roundId = locomoRoundId(pair);
      roundOfDiaId.set(pair.first.diaId, roundId);
      if (pair.reply) roundOfDiaId.set(pair.reply.diaId, roundId);
      rounds.push({
        id: roundId,
        sessionId: key,
        timestamp,
        user: turnInput(pair.first),
        ...(pair.reply ? { assistant: turnInput(pair.reply) } : {}),
      });
    }
  }
  const counts = emptyCounts();
  const questions: BenchQuestion[] = [];
  asArray(sample['qa'], `${where}.qa`).forEach((rawQa, q) => {
    const qaWhere = `${where}.qa[${q}]`;
    const qa = asObject(rawQa, qaWhere);
    counts.total += 1;
    const categoryNumber = qa['category'];
    if (categoryNumber === 5) {
      countExcluded(counts, LOCOMO_EXCLUDED.adversarial);
      return;
    }
    const category = typeof categoryNumber === 'number' ? LOCOMO_CATEGORIES[categoryNumber] : undefined;
    if (category === undefined) {
      countExcluded(counts, LOCOMO_EXCLUDED.unknownCategory);
      return;
    }
    const evidence = asArray(qa['evidence'] ?? [], `${qaWhere}.evidence`).map((e, i) => asString(e, `${qaWhere}.evidence[${i}]`));
    const goldRounds = mapEvidenceToRounds(evidence, roundOfDiaId, counts.evidenceIds);
    if (goldRounds.length === 0) {
      countExcluded(counts, LOCOMO_EXCLUDED.noEvidence);
      return;
    }
    counts.scored += 1;
    questions.push({
      id: `${id}#${q}`,
      category,
      query: { text: asString(qa['question'], `${qaWhere}.question`) },
      answer: asAnswer(qa['answer'], `${qaWhere}.answer`),
      goldRounds,
    });
  });
  const speakers = [...new Set(rounds.flatMap((round) => [round.user.text, round.assistant?.text].map((text) => /^([^:]+):/.exec(text ?? '')?.[1]).filter((name): name is string => name !== undefined)))];
  return { conversation: { id, rounds, questions, speakers }, counts };
}

/** `session_1`, `session_2`, … in numeric order (object key order is not to be trusted for this). */
function sessionKeys(conversation: Record<string, unknown>): string[] {
  return Object.keys(conversation)
    .filter((key) => /^session_\d+$/.test(key))
    .sort((a, b) => Number(a.slice('session_'.length)) - Number(b.slice('session_'.length)));
}

function parseTurn(raw: unknown, where: Where): LocomoTurn {
  const turn = asObject(raw, where);
  const diaId = asString(turn['dia_id'], `${where}.dia_id`);
  const imageCaption = optionalString(turn['blip_caption'], `${where}.blip_caption`);
  return {
    speaker: asString(turn['speaker'], `${where}.speaker`),
    diaId,
    text: asString(turn['text'], `${where}.text`),
    ...(imageCaption !== undefined ? { imageCaption } : {}),
  };
}

function turnInput(turn: LocomoTurn): TurnInput {
  return {
    text: `${turn.speaker}: ${turn.text}`,
    ...(turn.imageCaption !== undefined ? { images: [{ id: `${turn.diaId}:image`, caption: turn.imageCaption }] } : {}),
  };
}
