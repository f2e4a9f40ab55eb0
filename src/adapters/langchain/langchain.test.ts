import { readFileSync } from 'node:fs';
import type { ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { createMemory, type Memory, type RoundInput } from 'vmem';
import { memoryTools, VmemRetriever } from 'vmem/langchain';
import { createNodeEmbeddedEncoders, nodeImageResizer } from 'vmem/node';
import { BENCH_DATA_DIR, readFixturePhoto } from '../../testing/shared-data.js';

interface LocomoTurn {
  readonly speaker: string;
  readonly dia_id: string;
  readonly text: string;
}
interface LocomoItem {
  readonly conversation: Record<string, string | LocomoTurn[]>;
  readonly qa: readonly { readonly question: string; readonly evidence: readonly string[]; readonly category: number }[];
}

// The first LoCoMo conversation's first three sessions. As in the benchmark, a round is a turn and the
// other speaker's reply; its id joins their dia_ids ("D2:4+D2:5"), so the data set's evidence ids name
// the gold rounds.
const [item] = JSON.parse(readFileSync(`${BENCH_DATA_DIR}locomo/locomo-dev.json`, 'utf8')) as LocomoItem[];
const SESSIONS = [1, 2, 3];
const rounds: RoundInput[] = SESSIONS.flatMap((session) => {
  const turns = item!.conversation[`session_${session}`] as LocomoTurn[];
  const start = Date.parse(`${(item!.conversation[`session_${session}_date_time`] as string).replace(/^(.*) on (.*)$/, '$2 $1')} UTC`);
  const paired: RoundInput[] = [];
  for (let at = 0; at < turns.length; ) {
    const [turn, reply] = [turns[at]!, turns[at + 1]?.speaker === turns[at]!.speaker ? undefined : turns[at + 1]];
    const line = (said: LocomoTurn) => ({ text: `${said.speaker}: ${said.text}` });
    paired.push({ id: [turn, reply].flatMap((said) => said?.dia_id ?? []).join('+'), sessionId: `session_${session}`, timestamp: start + at * 60_000, user: line(turn), ...(reply ? { assistant: line(reply) } : {}) });
    at += reply ? 2 : 1;
  }
  return paired;
});
const roundOf = (diaId: string) => rounds.find((round) => round.id!.split('+').includes(diaId))!.id!;
// The first three single-hop questions whose evidence lies in those sessions, taken in the data set's order.
const questions = item!.qa.filter((qa) => qa.category === 4 && qa.evidence.every((id) => SESSIONS.includes(Number(/^D(\d+):/.exec(id)?.[1])))).slice(0, 3);

const textEncoder = createNodeEmbeddedEncoders().text;
let shared: Promise<Memory> | undefined;
const conversation = () => (shared ??= createMemory({ textEncoder }).then(async (memory) => (await memory.add(rounds), memory)));

describe('VmemRetriever', () => {
  // With the embedded USE-Lite encoder, k = 3 and the default ±1 neighbours: the gold rounds come back
  // at rank 1, at rank 3, and as context beside the rank-1 hit (the question's turn is in the round before).
  it('returns the gold rounds of three LoCoMo questions as documents with round metadata', async () => {
    const memory = await conversation();
    expect(questions).toHaveLength(3);
    const retriever = new VmemRetriever({ memory, retrieval: { k: 3 } });
    for (const { question, evidence } of questions) {
      const docs = await retriever.invoke(question);
      expect({ question, ids: docs.map((doc) => doc.metadata.roundId) }).toEqual({ question, ids: expect.arrayContaining(evidence.map(roundOf)) });
      expect(docs.filter((doc) => !doc.metadata.neighbour)).toHaveLength(3);
      const gold = docs.find((doc) => doc.metadata.roundId === roundOf(evidence[0]!))!;
      const round = (await memory.get(roundOf(evidence[0]!)))!;
      expect(gold.id).toBe(round.id);
      expect(gold.metadata).toMatchObject({ sessionId: round.sessionId, timestamp: round.timestamp, date: new Date(round.timestamp).toISOString(), images: [], case: 'text-to-text' });
      expect(gold.metadata.rank === undefined).toBe(gold.metadata.neighbour);
      expect(gold.pageContent).toContain(`User: ${round.user.text}`);
    }
  });

  it('puts context rounds after the hits and carries image references', async () => {
    const memory = await createMemory({ textEncoder });
    await memory.add([
      { id: 'a', sessionId: 's', timestamp: Date.UTC(2025, 1, 1), user: { text: 'We went to the coast this weekend.' } },
      { id: 'b', sessionId: 's', timestamp: Date.UTC(2025, 1, 1, 1), user: { text: 'This is the lighthouse we climbed', images: [{ id: 'lh', bytes: readFixturePhoto('sk_rocket.jpg'), mimeType: 'image/jpeg', caption: 'a tall lighthouse' }] } },
      { id: 'c', sessionId: 's', timestamp: Date.UTC(2025, 1, 1, 2), user: { text: 'Then we had fish for dinner.' } },
    ]);
    const docs = await new VmemRetriever({ memory, retrieval: { k: 3, weights: { dense: 0 } } }).invoke('the lighthouse we climbed');
    expect(docs.map((doc) => [doc.metadata.roundId, doc.metadata.neighbour])).toEqual([
      ['b', false],
      ['a', true],
      ['c', true],
    ]);
    expect(docs[0]!.metadata.images).toEqual([expect.objectContaining({ id: 'lh', caption: 'a tall lighthouse', hasBytes: true })]);
    expect(docs[0]!.pageContent).toContain('Image lh (from user): a tall lighthouse');
  });
});

describe('memoryTools (LangChain)', () => {
  it('run as tool calls: results as JSON text, pictures as the artifact', async () => {
    const memory = await conversation();
    const tools = memoryTools(memory, { imageResizer: nodeImageResizer, sessionId: 'lc' });
    expect(tools.map((tool) => tool.name)).toEqual(['recall', 'recall_by_time', 'get_images', 'remember']);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));

    const { question, evidence } = questions[0]!;
    const recalled = (await byName.get('recall')!.invoke({ id: 'call_1', name: 'recall', type: 'tool_call', args: { query: question, limit: 3 } })) as ToolMessage;
    expect(recalled.tool_call_id).toBe('call_1');
    expect((JSON.parse(recalled.content as string) as { rounds: { id: string }[] }).rounds.map((round) => round.id)).toEqual(expect.arrayContaining(evidence.map(roundOf)));

    const remembered = (await byName.get('remember')!.invoke({
      id: 'call_2',
      name: 'remember',
      type: 'tool_call',
      args: { user: 'Here is my bike', images: [{ source: `data:image/jpeg;base64,${Buffer.from(readFixturePhoto('sk_motorcycle_left.jpg')).toString('base64')}` }] },
    })) as ToolMessage;
    const { remembered: round } = JSON.parse(remembered.content as string) as { remembered: { id: string; session: string } };
    expect(round.session).toBe('lc');

    const pictures = (await byName.get('get_images')!.invoke({ id: 'call_3', name: 'get_images', type: 'tool_call', args: { roundIds: [round.id] } })) as ToolMessage;
    expect(JSON.parse(pictures.content as string)).toMatchObject({ images: [{ roundId: round.id, picture: 1 }] });
    expect(pictures.artifact).toEqual([expect.objectContaining({ mimeType: 'image/jpeg', base64: expect.stringMatching(/^\/9j\//) })]);

    const missing = (await byName.get('get_images')!.invoke({ id: 'call_4', name: 'get_images', type: 'tool_call', args: { roundIds: ['nope'] } })) as ToolMessage;
    expect(JSON.parse(missing.content as string)).toMatchObject({ images: [], unknownRoundIds: ['nope'] });
    await memory.forget(round.id);
  });
});
