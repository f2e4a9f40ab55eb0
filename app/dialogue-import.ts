/**
 * Turns a Mem-Gallery dialogue file or a LoCoMo file into rounds with the benchmark's own parsers
 * (`bench/memgallery.ts`, `bench/locomo.ts`), so a memory imported in the demo is exactly the one the
 * benchmark measures: the same rounds, ids, pairing of turns and timestamps. Images in these files
 * come as captions only (their pixels are not in the JSON), so they are stored caption-only.
 */
import { VmemError, type RoundInput } from 'vmem';
import { parseLocomoFile } from '../bench/locomo.js';
import { parseMemGalleryFile } from '../bench/memgallery.js';

/** What an import produced, and what it left out. */
export interface ImportedDialogue {
  readonly format: 'mem-gallery' | 'locomo';
  readonly title: string;
  readonly rounds: readonly RoundInput[];
  /** Set when a LoCoMo file held several conversations and only the first was taken. */
  readonly note?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Detects the format and parses it. Rejects anything else, and a file of that format with a
 * malformed entry, with `INVALID_INPUT` naming what was expected.
 * @example const { rounds } = parseDialogueFile(JSON.parse(await file.text()), file.name);
 */
export function parseDialogueFile(json: unknown, fileName: string): ImportedDialogue {
  const imported = parseKnownFormat(json, fileName);
  if (imported.rounds.length === 0) throw new VmemError('INVALID_INPUT', `"${fileName}" has no dialogue rounds. Nothing was imported.`);
  return imported;
}

function parseKnownFormat(json: unknown, fileName: string): ImportedDialogue {
  if (isObject(json) && Array.isArray(json.multi_session_dialogues)) {
    const { conversation } = parseMemGalleryFile(fileName, json);
    return { format: 'mem-gallery', title: conversation.id, rounds: conversation.rounds };
  }
  const items = Array.isArray(json) ? json : [json];
  if (items.length > 0 && items.every((item) => isObject(item) && isObject(item.conversation))) {
    const conversations = parseLocomoFile(fileName, items);
    const { id, rounds } = conversations[0]!.conversation;
    return {
      format: 'locomo',
      title: id,
      rounds,
      ...(conversations.length > 1 ? { note: `The file holds ${conversations.length} conversations; imported the first (${id}).` } : {}),
    };
  }
  throw new VmemError(
    'INVALID_INPUT',
    `"${fileName}" is neither a Mem-Gallery dialogue (with "multi_session_dialogues") nor a LoCoMo file (items with "conversation"). Nothing was imported.`,
  );
}
