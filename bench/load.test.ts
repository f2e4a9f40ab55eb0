import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDataset } from './load.js';

function conversation(id: string, questions: number): unknown {
  return {
    sample_id: id,
    conversation: {
      speaker_a: 'A',
      speaker_b: 'B',
      session_1_date_time: '1:00 pm on 1 May, 2023',
      session_1: [
        { speaker: 'A', dia_id: 'D1:1', text: 'hello' },
        { speaker: 'B', dia_id: 'D1:2', text: 'hi' },
      ],
    },
    qa: Array.from({ length: questions }, () => ({ question: 'q?', answer: 'a', evidence: ['D1:1'], category: 4 })),
  };
}

describe('loadDataset', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'vmem-bench-'));
    await writeFile(join(folder, 'locomo.json'), JSON.stringify([conversation('c1', 2), conversation('c2', 3)]));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('--limit keeps the first conversations and counts only their questions', async () => {
    const all = await loadDataset('locomo', folder);
    const first = await loadDataset('locomo', folder, 1);
    expect(all.conversations.map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(all.questions).toMatchObject({ total: 5, scored: 5 });
    expect(first.conversations.map((c) => c.id)).toEqual(['c1']);
    expect(first.questions).toMatchObject({ total: 2, scored: 2, evidenceIds: { total: 2 } });
  });
});
