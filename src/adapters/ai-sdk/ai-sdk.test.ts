import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemory, type Memory } from 'vmem';
import { memoryMiddleware, memoryTools, MEMORY_CONTEXT_HEADER } from 'vmem/ai-sdk';
import { decodeImageNode, nodeImageResizer } from 'vmem/node';
import { createThumbImageEncoder } from '../../images/testing/thumb-encoder.js';
import { completionBody, startFakeOpenAiServer, toolCallBody, type FakeOpenAiServer, type RecordedRequest } from '../../llm/testing/fake-openai-server.js';
import { createHashTextEncoder } from '../../testing/hash-encoder.js';
import { readFixturePhoto } from '../../testing/shared-data.js';

const at = (day: number) => Date.UTC(2025, 4, day, 12);

async function conversation(): Promise<Memory> {
  const memory = await createMemory({ textEncoder: createHashTextEncoder(), imageEncoder: createThumbImageEncoder(decodeImageNode) });
  await memory.add([
    { id: 'violin', sessionId: 'a', timestamp: at(1), user: { text: 'I started violin lessons with a teacher called Ana.' }, assistant: { text: 'Lovely!' } },
    { id: 'bike', sessionId: 'a', timestamp: at(3), user: { text: 'Picked this up today', images: [{ id: 'moto', bytes: readFixturePhoto('sk_motorcycle_left.jpg'), mimeType: 'image/jpeg', caption: 'a motorcycle' }] } },
    { id: 'lisbon', sessionId: 'b', timestamp: at(9), user: { text: 'My sister moved to Lisbon for a new job.' }, assistant: { text: 'Big change for her.' } },
    { id: 'coffee', sessionId: 'b', timestamp: at(12), user: { text: 'Morning coffee', images: [{ id: 'cup', bytes: readFixturePhoto('sk_coffee.jpg'), mimeType: 'image/jpeg' }] } },
  ]);
  return memory;
}

interface ChatBody {
  messages: { role: string; content: unknown; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; parameters: Record<string, unknown> } }[];
}
const bodyOf = (request: RecordedRequest) => request.body as ChatBody;
const hasToolResult = (request: RecordedRequest) => bodyOf(request).messages.some((message) => message.role === 'tool');

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const modelAt = (url: string) => createOpenAICompatible({ name: 'fake', baseURL: url }).chatModel('fake-model');

describe('memoryTools with generateText', () => {
  it('the model calls recall and the tool result carries the gold round', async () => {
    const memory = await conversation();
    server = await startFakeOpenAiServer((request) =>
      hasToolResult(request) ? { body: completionBody('Your sister moved to Lisbon.') } : { body: toolCallBody('call_1', 'recall', { query: 'sister moved city' }) },
    );
    const result = await generateText({ model: modelAt(server.url), tools: memoryTools(memory), stopWhen: stepCountIs(3), prompt: 'Where did my sister move?' });

    expect(result.text).toBe('Your sister moved to Lisbon.');
    const [call] = result.steps[0]!.toolResults;
    expect(call).toMatchObject({ toolName: 'recall', input: { query: 'sister moved city' } });
    expect((call!.output as { rounds: { id: string }[] }).rounds[0]).toMatchObject({ id: 'lisbon', user: 'My sister moved to Lisbon for a new job.' });
    // The model saw the same JSON: the second request's tool message names the gold round.
    const toolMessage = bodyOf(server.requests[1]!).messages.find((message) => message.role === 'tool')!;
    expect(toolMessage.tool_call_id).toBe('call_1');
    expect((JSON.parse(toolMessage.content as string) as { rounds: { id: string }[] }).rounds[0]!.id).toBe('lisbon');
    // The default tool set went out with the schemas the OpenAI definitions describe.
    expect(bodyOf(server.requests[0]!).tools!.map((tool) => tool.function.name)).toEqual(['recall', 'recall_by_time', 'get_images', 'remember']);
  });

  it('remember stores the exchange the model chose to keep, in the host session; a bad id comes back as an error the model can fix', async () => {
    const memory = await conversation();
    let step = 0;
    server = await startFakeOpenAiServer(() => {
      step++;
      if (step === 1) return { body: toolCallBody('call_r', 'remember', { user: 'My passport expires in March 2027.' }) };
      if (step === 2) return { body: toolCallBody('call_f', 'forget', { roundId: 'no-such-round' }) };
      return { body: completionBody('Noted.') };
    });
    const result = await generateText({
      model: modelAt(server.url),
      tools: memoryTools(memory, { tools: ['remember', 'forget'], sessionId: 'chat-42' }),
      stopWhen: stepCountIs(4),
      prompt: 'Remember that my passport expires in March 2027.',
    });
    expect(result.text).toBe('Noted.');
    const remembered = (result.steps[0]!.toolResults[0]!.output as { remembered: { id: string } }).remembered;
    expect(memory.get(remembered.id)).toMatchObject({ sessionId: 'chat-42', user: { text: 'My passport expires in March 2027.' } });
    expect(result.steps[1]!.toolResults[0]!.output).toMatchObject({ error: { code: 'UNKNOWN_ROUND' } });
  });

  it('get_images hands the pictures to the model as image parts of the tool result', async () => {
    const memory = await conversation();
    const tools = memoryTools(memory, { tools: ['get_images'], imageResizer: nodeImageResizer });
    const output = await tools.get_images.execute!({ roundIds: ['bike'] }, { toolCallId: 'c', messages: [] });
    expect(output).toMatchObject({ images: [{ imageId: 'moto', picture: 1 }], pictures: [{ imageId: 'moto', mimeType: 'image/jpeg' }] });
    const forModel = await tools.get_images.toModelOutput!({ toolCallId: 'c', input: { roundIds: ['bike'] }, output: output as never });
    expect(forModel).toMatchObject({ type: 'content', value: [{ type: 'text' }, { type: 'image-data', mediaType: 'image/jpeg', data: expect.stringMatching(/^\/9j\//) }] });
    expect(JSON.parse((forModel as { value: { text: string }[] }).value[0]!.text)).not.toHaveProperty('pictures');
  });
});

describe('memoryMiddleware', () => {
  it('adds the rounds retrieved for the last user message, once per question across tool steps', async () => {
    const memory = await conversation();
    const retrievals: string[] = [];
    server = await startFakeOpenAiServer((request) =>
      hasToolResult(request) ? { body: completionBody('Lisbon.') } : { body: toolCallBody('call_1', 'recall_by_time', { from: '2025-05-01', to: '2025-05-31' }) },
    );
    const model = wrapLanguageModel({ model: modelAt(server.url), middleware: memoryMiddleware(memory, { onRetrieval: (result) => retrievals.push(result.case) }) });
    await generateText({ model, system: 'You are brief.', tools: memoryTools(memory), stopWhen: stepCountIs(3), prompt: 'Where did my sister move to?' });

    expect(retrievals).toEqual(['text-to-text']);
    for (const request of server.requests) {
      const [own, added, question] = bodyOf(request).messages;
      expect(own).toEqual({ role: 'system', content: 'You are brief.' });
      expect(added!.role).toBe('system');
      expect(added!.content).toContain(MEMORY_CONTEXT_HEADER);
      expect(added!.content).toContain('User: My sister moved to Lisbon for a new job.');
      expect(question).toMatchObject({ role: 'user' });
    }
  });

  it('searches with the picture attached to the user message', async () => {
    const memory = await conversation();
    server = await startFakeOpenAiServer(() => ({ body: completionBody('That is your motorcycle.') }));
    const cases: string[] = [];
    const model = wrapLanguageModel({ model: modelAt(server.url), middleware: memoryMiddleware(memory, { retrieval: { k: 1, neighbours: 0 }, onRetrieval: (result) => cases.push(result.case) }) });
    await generateText({
      model,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Which of my photos looks like this one?' }, { type: 'image', image: readFixturePhoto('sk_motorcycle_left.jpg'), mediaType: 'image/jpeg' }] }],
    });
    expect(cases).toEqual(['image+text-to-image']);
    const added = bodyOf(server.requests[0]!).messages[0]!;
    expect(added.content).toContain('Image moto (from user): a motorcycle');
    expect(added.content).not.toContain('Lisbon');
  });
});
