import { VmemError, type ImageInput, type Query, type RoundInput } from 'vmem';
import { countExcluded, emptyCounts, type BenchQuestion, type ParsedConversation } from './dataset.js';
import { asArray, asObject, asString, optionalString, optionalStrings, type Where } from './json-shape.js';

/** Why a Mem-Gallery question is left out of evidence recall. */
export const MEMGALLERY_EMPTY_CLUE = 'emptyClue';

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const IMAGE_ID = /^D\d+:IMG_\d+$/;

/** `2024-06-17` → epoch ms at UTC midnight. Rejects anything else, naming `where`. */
export function parseIsoDay(text: string, where: Where): number {
  const match = ISO_DAY.exec(text.trim());
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  // Date.UTC rolls 2024-02-31 over into March; a round trip catches impossible days.
  if (!match || new Date(ms).toISOString().slice(0, 10) !== text.trim()) {
    throw new VmemError('INVALID_INPUT', `${where} is "${text}", not a date of the form YYYY-MM-DD.`);
  }
  return ms;
}

/**
 * The image ids an answer names, e.g. `"D2:IMG_003, D2:IMG_004"` → both ids; undefined when the
 * answer is anything else (a count, a sentence), because then the goldImages metric does not apply.
 */
export function imageIdsInAnswer(answer: string): string[] | undefined {
  const parts = answer.split(',').map((part) => part.trim()).filter((part) => part !== '');
  return parts.length > 0 && parts.every((part) => IMAGE_ID.test(part)) ? parts : undefined;
}

/**
 * Converts one Mem-Gallery dialogue file into a conversation.
 * - Each `dialogues[]` entry is a round (id = its `round`, e.g. `D1:4`), timestamped with its session's date.
 * - Images are caption-only (`{ id: image_id, caption }`) and belong to the user turn, who shares them.
 * - A question's `question_image` becomes a caption-only query image `{ caption: image_caption }`.
 * - Questions with an empty `clue` (the AR "Not mentioned." ones) are excluded from recall and counted;
 *   they are kept as `notMentioned` for the abstention table.
 * - VS questions whose answer lists image ids get `goldImages`.
 */
export function parseMemGalleryFile(path: string, json: unknown): ParsedConversation {
  // Not node:path's basename: the demo runs this parser in the browser too.
  const file = path.replace(/^.*[\\/]/, '');
  const id = file.replace(/\.json$/i, '');
  const root = asObject(json, file);
  const rounds = parseRounds(root['multi_session_dialogues'], `${file}: multi_session_dialogues`);
  const roundIds = new Set(rounds.map((round) => round.id as string));
  const counts = emptyCounts();
  const questions: BenchQuestion[] = [];
  const notMentioned: Pick<BenchQuestion, 'id' | 'query'>[] = [];
  asArray(root['human-annotated QAs'], `${file}: human-annotated QAs`).forEach((raw, index) => {
    const where = `${file}: human-annotated QAs[${index}]`;
    const qa = asObject(raw, where);
    counts.total += 1;
    const clue = optionalStrings(qa['clue'], `${where}.clue`);
    const goldRounds = clue.filter((roundId) => roundIds.has(roundId));
    counts.evidenceIds.total += clue.length;
    counts.evidenceIds.missing += clue.length - goldRounds.length;
    if (clue.length === 0) {
      countExcluded(counts, MEMGALLERY_EMPTY_CLUE);
      notMentioned.push({ id: `${id}#${index}`, query: parseQuery(qa, where) });
      return;
    }
    if (goldRounds.length === 0) {
      countExcluded(counts, 'clueNotInDialogue');
      return;
    }
    const category = asString(qa['point'], `${where}.point`);
    const answer = asString(qa['answer'], `${where}.answer`);
    const goldImages = category === 'VS' ? imageIdsInAnswer(answer) : undefined;
    counts.scored += 1;
    questions.push({
      id: `${id}#${index}`,
      category,
      query: parseQuery(qa, where),
      answer,
      goldRounds,
      ...(goldImages ? { goldImages } : {}),
    });
  });
  return { conversation: { id, rounds, questions, notMentioned }, counts };
}

function parseRounds(value: unknown, where: Where): RoundInput[] {
  const rounds: RoundInput[] = [];
  asArray(value, where).forEach((rawSession, s) => {
    const sessionWhere = `${where}[${s}]`;
    const session = asObject(rawSession, sessionWhere);
    const sessionId = asString(session['session_id'], `${sessionWhere}.session_id`);
    const timestamp = parseIsoDay(asString(session['date'], `${sessionWhere}.date`), `${sessionWhere}.date`);
    asArray(session['dialogues'], `${sessionWhere}.dialogues`).forEach((rawRound, r) => {
      const roundWhere = `${sessionWhere}.dialogues[${r}]`;
      const round = asObject(rawRound, roundWhere);
      rounds.push({
        id: asString(round['round'], `${roundWhere}.round`),
        sessionId,
        timestamp,
        user: { text: asString(round['user'], `${roundWhere}.user`), images: parseImages(round, roundWhere) },
        assistant: { text: asString(round['assistant'], `${roundWhere}.assistant`) },
      });
    });
  });
  return rounds;
}

function parseImages(round: Record<string, unknown>, where: Where): ImageInput[] {
  const ids = optionalStrings(round['image_id'], `${where}.image_id`);
  const captions = optionalStrings(round['image_caption'], `${where}.image_caption`);
  if (ids.length !== captions.length) {
    throw new VmemError('INVALID_INPUT', `${where} has ${ids.length} image_id and ${captions.length} image_caption entries; each image needs its caption.`);
  }
  return ids.map((imageId, i) => ({ id: imageId, caption: captions[i] as string }));
}

function parseQuery(qa: Record<string, unknown>, where: Where): Query {
  const text = asString(qa['question'], `${where}.question`);
  const imagePath = optionalString(qa['question_image'], `${where}.question_image`);
  if (imagePath === undefined) return { text };
  const caption = optionalString(qa['image_caption'], `${where}.image_caption`);
  // Image bytes are not available here; a query image without its caption would carry nothing.
  if (caption === undefined || caption.trim() === '') {
    throw new VmemError('INVALID_INPUT', `${where} has a question_image but no image_caption; caption-proxy mode needs the caption.`);
  }
  return { text, image: { caption } };
}
