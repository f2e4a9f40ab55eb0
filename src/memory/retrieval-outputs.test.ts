import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMemory, type RetrievalResult } from 'vmem';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { locomoTextRounds } from '../testing/locomo-rounds.js';
import { BENCH_DATA_DIR } from '../testing/shared-data.js';
import { topicWordVectors } from '../testing/word-vectors.js';

/*
 * What retrieval returns, pinned: the ranked rounds, fused scores and confidence of every question of
 * a LoCoMo dev conversation (and a few that name times or topic words), as the code returned them
 * when the file was last written (`git log` on it says why each time). Work that only makes retrieval faster must leave every figure as it was; a change
 * that means to move results writes the file again (`VMEM_WRITE_RETRIEVAL_OUTPUTS=1 npx vitest run
 * src/memory/retrieval-outputs.test.ts`) and says why in its commit.
 */
const OUTPUTS = new URL('./testing/retrieval-outputs.json', import.meta.url);
const NOW = Date.UTC(2023, 11, 1);

function digest(result: RetrievalResult) {
  return {
    case: result.case,
    confidence: result.confidence,
    relevant: result.relevant,
    blocks: result.blocks.map((block) => block.rounds.map((round) => round.id)),
    trace: result.trace.slice(0, 12).map((entry, at) => [entry.roundId, entry.fusedScore, entry.confidence ?? null, ...(at < 3 ? entry.hits.map((hit) => `${hit.signal}:${hit.rank}:${hit.score}`) : [])]),
    timeSpans: result.timeSpans?.map((span) => [span.start, span.end]) ?? [],
  };
}

describe('retrieval outputs (memory.retrieve)', () => {
  it('returns the very rounds, scores and confidences it returned before', async () => {
    const file = JSON.parse(readFileSync(`${BENCH_DATA_DIR}locomo/locomo-dev.json`, 'utf8')) as { qa: { question: string }[] }[];
    const questions = [
      ...file[0]!.qa.filter((_, at) => at % 3 === 0).map((qa) => qa.question),
      'What martial arts did Caroline try in May 2023?',
      'Which cities did Melanie visit last weekend?',
      'What did we talk about recently?',
    ];
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), wordVectors: topicWordVectors(), retrieval: { now: NOW } });
    await memory.add(locomoTextRounds(0));
    const outputs = [];
    for (const question of questions) outputs.push({ question, ...digest(await memory.retrieve(question)) });
    await memory.close();
    if (process.env.VMEM_WRITE_RETRIEVAL_OUTPUTS === '1') writeFileSync(OUTPUTS, `${JSON.stringify(outputs)}\n`);
    const pinned = JSON.parse(readFileSync(OUTPUTS, 'utf8')) as unknown[];
    expect(outputs.length).toBe(pinned.length);
    outputs.forEach((output, at) => expect(output).toEqual(pinned[at]));
  }, 60_000);
});
