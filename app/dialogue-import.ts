/**
 * Turns a Mem-Gallery dialogue file or a LoCoMo conversation file into rounds. Images in these files
 * come as captions only (their pixels are not in the JSON), so they are stored caption-only.
 */
import { VmemError } from '../src/errors.js';
import type { ImageInput, RoundInput } from '../src/types.js';

/** What an import produced, and what it left out. */
export interface ImportedDialogue {
  readonly format: 'mem-gallery' | 'locomo';
  readonly title: string;
  readonly rounds: RoundInput[];
  /** Set when a LoCoMo file held several conversations and only the first was taken. */
  readonly note?: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : []);

/**
 * Detects the format and maps it. Rejects anything else with `INVALID_INPUT` naming what was expected.
 * @example const { rounds } = parseDialogueFile(JSON.parse(await file.text()), file.name);
 */
export function parseDialogueFile(json: unknown, fileName: string): ImportedDialogue {
  if (isObject(json) && Array.isArray(json.multi_session_dialogues)) return fromMemGallery(json, fileName);
  const locomo = Array.isArray(json) ? json : [json];
  if (locomo.length > 0 && locomo.every((item) => isObject(item) && isObject(item.conversation))) return fromLocomo(locomo as Json[], fileName);
  throw new VmemError(
    'INVALID_INPUT',
    `"${fileName}" is neither a Mem-Gallery dialogue (with "multi_session_dialogues") nor a LoCoMo file (items with "conversation"). Nothing was imported.`,
  );
}

function fromMemGallery(json: Json, fileName: string): ImportedDialogue {
  const rounds: RoundInput[] = [];
  for (const session of json.multi_session_dialogues as unknown[]) {
    if (!isObject(session)) continue;
    const sessionId = text(session.session_id) || `S${rounds.length}`;
    const day = Date.parse(text(session.date));
    const dialogues = Array.isArray(session.dialogues) ? session.dialogues : [];
    dialogues.forEach((dialogue, index) => {
      if (!isObject(dialogue)) return;
      const captions = strings(dialogue.image_caption);
      const ids = strings(dialogue.image_id);
      const images: ImageInput[] = captions.map((caption, i) => ({ ...(ids[i] ? { id: ids[i] } : {}), caption }));
      rounds.push({
        ...(text(dialogue.round) ? { id: text(dialogue.round) } : {}),
        sessionId,
        // Rounds of one day keep their order: one minute apart.
        timestamp: (Number.isNaN(day) ? 0 : day) + index * 60_000,
        user: { text: text(dialogue.user), images },
        assistant: { text: text(dialogue.assistant) },
      });
    });
  }
  if (rounds.length === 0) throw new VmemError('INVALID_INPUT', `"${fileName}" has no dialogue rounds. Nothing was imported.`);
  return { format: 'mem-gallery', title: fileName.replace(/\.json$/i, ''), rounds };
}

function fromLocomo(items: Json[], fileName: string): ImportedDialogue {
  const item = items[0]!;
  const conversation = item.conversation as Json;
  const speakerA = text(conversation.speaker_a);
  const rounds: RoundInput[] = [];
  const sessionKeys = Object.keys(conversation)
    .filter((key) => /^session_\d+$/.test(key))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  for (const key of sessionKeys) {
    const start = parseLocomoDateTime(text(conversation[`${key}_date_time`]));
    const turns = (Array.isArray(conversation[key]) ? conversation[key] : []).filter(isObject);
    // Speaker A's turn opens a round; the next turn by speaker B is its reply.
    let pending: { user: Json; assistant?: Json } | undefined;
    const flush = () => {
      if (!pending) return;
      const id = text(pending.user.dia_id) || undefined;
      rounds.push({
        ...(id ? { id } : {}),
        sessionId: `D${key.slice(8)}`,
        timestamp: start + rounds.length * 60_000,
        user: turnOf(pending.user),
        assistant: pending.assistant ? turnOf(pending.assistant) : {},
      });
      pending = undefined;
    };
    for (const turn of turns) {
      if (text(turn.speaker) === speakerA || !pending || pending.assistant) {
        flush();
        pending = { user: turn };
      } else {
        pending.assistant = turn;
      }
    }
    flush();
  }
  if (rounds.length === 0) throw new VmemError('INVALID_INPUT', `"${fileName}" has no conversation turns. Nothing was imported.`);
  const title = text(item.sample_id) || fileName.replace(/\.json$/i, '');
  return {
    format: 'locomo',
    title,
    rounds,
    ...(items.length > 1 ? { note: `The file holds ${items.length} conversations; imported the first (${title}).` } : {}),
  };
}

function turnOf(turn: Json) {
  const speaker = text(turn.speaker);
  const captions = strings(turn.blip_caption);
  return {
    text: speaker ? `${speaker}: ${text(turn.text)}` : text(turn.text),
    images: captions.map((caption) => ({ caption })),
  };
}

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC); 0 when unreadable, which keeps order but not dates. */
export function parseLocomoDateTime(value: string): number {
  const match = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(value.trim());
  if (!match) return 0;
  const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
  const month = months.indexOf(match[5]!.slice(0, 3).toLowerCase());
  if (month < 0) return 0;
  const hour = (Number(match[1]) % 12) + (match[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(match[6]), month, Number(match[4]), hour, Number(match[2]));
}
