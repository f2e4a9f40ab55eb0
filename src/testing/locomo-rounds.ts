import { readFileSync } from 'node:fs';
import type { RoundInput } from '../types.js';
import { BENCH_DATA_DIR } from './shared-data.js';

/**
 * Test-only: the text of one LoCoMo dev conversation as plain rounds (two consecutive turns each,
 * `Speaker: text`), one session per LoCoMo session, and no pictures: a realistic crowd of ordinary
 * rounds for retrieval tests.
 */
export function locomoTextRounds(conversation = 0): RoundInput[] {
  const file = JSON.parse(readFileSync(`${BENCH_DATA_DIR}locomo/locomo-dev.json`, 'utf8')) as { conversation: Record<string, unknown> }[];
  const sessions = file[conversation]!.conversation;
  const rounds: RoundInput[] = [];
  for (let session = 1; Array.isArray(sessions[`session_${session}`]); session++) {
    const turns = sessions[`session_${session}`] as { speaker: string; dia_id: string; text: string }[];
    const timestamp = Date.UTC(2023, 0, session);
    for (let at = 0; at < turns.length; at += 2) {
      const [first, reply] = [turns[at]!, turns[at + 1]];
      rounds.push({
        id: `locomo-${first.dia_id}`,
        sessionId: `session_${session}`,
        timestamp,
        user: { text: `${first.speaker}: ${first.text}` },
        ...(reply ? { assistant: { text: `${reply.speaker}: ${reply.text}` } } : {}),
      });
    }
  }
  return rounds;
}
