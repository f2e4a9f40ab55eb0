import { readFileSync, readdirSync } from 'node:fs';
import { BENCH_DATA_DIR } from '../../testing/shared-data.js';

/**
 * Test-only: `count` chat turns from the two dev sets (half Mem-Gallery, half LoCoMo), evenly spaced
 * through each so short greetings and long answers both come in. Always the same texts.
 */
export function benchTexts(count: number): string[] {
  const memGallery: string[] = [];
  const folder = `${BENCH_DATA_DIR}memgallery/`;
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.json')).sort()) {
    const data = JSON.parse(readFileSync(folder + file, 'utf8')) as { multi_session_dialogues: { dialogues: { user?: string; assistant?: string }[] }[] };
    for (const session of data.multi_session_dialogues) for (const round of session.dialogues) memGallery.push(round.user ?? '', round.assistant ?? '');
  }
  const locomo: string[] = [];
  const conversations = JSON.parse(readFileSync(`${BENCH_DATA_DIR}locomo/locomo-dev.json`, 'utf8')) as { conversation: Record<string, unknown> }[];
  for (const { conversation } of conversations) {
    for (const [key, turns] of Object.entries(conversation)) {
      if (/^session_\d+$/.test(key) && Array.isArray(turns)) for (const turn of turns as { text?: string }[]) locomo.push(turn.text ?? '');
    }
  }
  const half = Math.floor(count / 2);
  return [...evenlySpaced(memGallery.filter(Boolean), half), ...evenlySpaced(locomo.filter(Boolean), count - half)];
}

function evenlySpaced<T>(items: readonly T[], count: number): T[] {
  return Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)]!);
}
