import jpeg from 'jpeg-js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemory, createNoneProvider, createOpenAiProvider, type Memory } from 'vmem';
import { MEMORY_TOOLS, runAgent, runTool, toolError } from 'vmem/tools';
import { decodeImageNode, nodeImageResizer } from 'vmem/node';
import { createThumbImageEncoder } from '../images/testing/thumb-encoder.js';
import { completionBody, startFakeOpenAiServer, toolCallBody, type FakeHandler, type FakeOpenAiServer, type RecordedRequest } from '../llm/testing/fake-openai-server.js';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { readFixturePhoto } from '../testing/shared-data.js';

const photo = readFixturePhoto;
const at = (day: number, hour = 12) => Date.UTC(2025, 3, day, hour);

const dataUrl = (bytes: Uint8Array) => `data:image/jpeg;base64,${Buffer.from(bytes).toString('base64')}`;

async function filledMemory(): Promise<Memory> {
  const memory = await createMemory({ textEncoder: createHashTextEncoder(), imageEncoder: createThumbImageEncoder(decodeImageNode) });
  await memory.add([
    { id: 'r1', sessionId: 's1', timestamp: at(1), user: { text: 'I started violin lessons with a new teacher.' }, assistant: { text: 'Exciting!' } },
    { id: 'r2', sessionId: 's1', timestamp: at(3), user: { text: 'Here is my new bike', images: [{ id: 'bike', bytes: photo('sk_motorcycle_left.jpg'), mimeType: 'image/jpeg', caption: 'a motorcycle' }] } },
    { id: 'r3', sessionId: 's2', timestamp: at(10), user: { text: 'We hiked up the hill on Saturday.' } },
    { id: 'r4', sessionId: 's2', timestamp: at(12), user: { text: 'Violin recital went well.', images: [{ id: 'old', caption: 'a violin on a chair' }] } },
    { id: 'r5', sessionId: 's3', timestamp: at(20), user: { text: 'My sister moved to Lisbon. '.repeat(30) } },
  ]);
  return memory;
}

describe('tool definitions', () => {
  it('are OpenAI function tools with JSON-schema parameters', () => {
    expect(MEMORY_TOOLS.map((tool) => tool.function.name)).toEqual(['recall', 'recall_by_time', 'get_images', 'remember', 'forget']);
    for (const tool of MEMORY_TOOLS) {
      expect(tool.type).toBe('function');
      expect(tool.function.parameters).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });
});

describe('runTool', () => {
  it('recall returns the best rounds as small JSON', async () => {
    const memory = await filledMemory();
    const { content, images } = await runTool(memory, 'recall', { query: 'violin lessons teacher', limit: 2 });
    const rounds = content.rounds as { id: string; date: string; user: string }[];
    expect(rounds.map((round) => round.id)).toEqual(['r1', 'r4']);
    expect(rounds[0]).toMatchObject({ date: '2025-04-01T12:00Z', session: 's1', user: 'I started violin lessons with a new teacher.' });
    expect(images).toEqual([]);
    // Long turns are cut to a snippet.
    const lisbon = await runTool(memory, 'recall', { query: 'sister Lisbon', limit: 1 });
    expect(((lisbon.content.rounds as { user: string }[])[0]!.user).length).toBeLessThanOrEqual(300);
    expect(JSON.stringify(lisbon.content).length).toBeLessThan(600);
  });

  it('recall with a picture finds the round that holds the same photo', async () => {
    const memory = await filledMemory();
    await memory.add({ id: 'r6', sessionId: 's3', timestamp: at(21), user: { text: 'Tea time', images: [{ id: 'cup', bytes: photo('sk_coffee.jpg'), mimeType: 'image/jpeg' }] } });
    const { content } = await runTool(memory, 'recall', { query: 'which photo is like this one?', image: dataUrl(photo('sk_motorcycle_left.jpg')), limit: 1 });
    expect(content).toMatchObject({ searchedWithImage: true, case: 'image+text-to-image', rounds: [{ id: 'r2', images: [{ id: 'bike' }] }] });
    await expect(runTool(memory, 'recall', { query: 'like this', image: 'https://example.com/cat.jpg' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('data: URL'),
    });
  });

  it('remember stores an exchange with its picture in the given session, and forget removes it', async () => {
    const memory = await filledMemory();
    const { content } = await runTool(
      memory,
      'remember',
      { user: 'My coffee mug has a blue rim.', assistant: 'Noted!', images: [{ source: dataUrl(photo('sk_coffee.jpg')), caption: 'a coffee mug' }] },
      { sessionId: 'chat-7' },
    );
    const remembered = (content as { remembered: { id: string; session: string; images: { id: string; caption: string }[] } }).remembered;
    expect(remembered).toMatchObject({ session: 'chat-7', user: expect.stringContaining('blue rim'), assistant: 'Noted!', images: [{ caption: 'a coffee mug' }] });
    const stored = await memory.getImage(remembered.images[0]!.id);
    expect(stored?.bytes).toEqual(photo('sk_coffee.jpg'));
    const found = await runTool(memory, 'recall', { query: 'coffee mug rim', limit: 1 });
    expect((found.content.rounds as { id: string }[])[0]!.id).toBe(remembered.id);

    expect((await runTool(memory, 'forget', { roundId: remembered.id })).content).toEqual({ forgotten: remembered.id });
    expect((await memory.get(remembered.id))).toBeUndefined();
    await expect(runTool(memory, 'forget', { roundId: remembered.id })).rejects.toMatchObject({ code: 'UNKNOWN_ROUND' });
    await expect(runTool(memory, 'remember', { user: '  ' })).rejects.toMatchObject({ code: 'EMPTY_ROUND' });
  });

  it('recall_by_time lists a date range, a bare "to" date including its whole day', async () => {
    const memory = await filledMemory();
    const { content } = await runTool(memory, 'recall_by_time', { from: '2025-04-03', to: '2025-04-12' });
    expect((content.rounds as { id: string }[]).map((round) => round.id)).toEqual(['r2', 'r3', 'r4']);
    expect(content.total).toBe(3);
    const ranked = await runTool(memory, 'recall_by_time', { from: '2025-04-01', to: '2025-04-30', query: 'violin recital' });
    expect((ranked.content.rounds as { id: string }[])[0]!.id).toBe('r4');
  });

  it('get_images returns refs and captions, and ≤768 px JPEG pictures beside the JSON', async () => {
    const memory = await filledMemory();
    const withPictures = await runTool(memory, 'get_images', { roundIds: ['r2', 'r4', 'nope'] }, { imageResizer: nodeImageResizer });
    expect(withPictures.content).toMatchObject({
      images: [
        { imageId: 'bike', roundId: 'r2', caption: 'a motorcycle', picture: 1 },
        { imageId: 'old', roundId: 'r4', caption: 'a violin on a chair', unavailable: 'no-bytes' },
      ],
      unknownRoundIds: ['nope'],
    });
    expect(JSON.stringify(withPictures.content)).not.toContain('base64');
    expect(withPictures.images).toHaveLength(1);
    expect(withPictures.images[0]).toMatchObject({ imageId: 'bike', mimeType: 'image/jpeg' });
    expect(withPictures.images[0]!.url).toBe(`data:image/jpeg;base64,${withPictures.images[0]!.base64}`);
    const decoded = jpeg.decode(Buffer.from(withPictures.images[0]!.base64, 'base64'), { useTArray: true });
    expect(Math.max(decoded.width, decoded.height)).toBeLessThanOrEqual(768);

    const refsOnly = await runTool(memory, 'get_images', { roundIds: ['r2'] });
    expect(refsOnly.images).toEqual([]);
    expect(refsOnly.content).toMatchObject({ images: [{ imageId: 'bike', caption: 'a motorcycle' }], note: expect.stringContaining('captions') });
  });

  it('rejects bad arguments with messages the model can act on', async () => {
    const memory = await filledMemory();
    await expect(runTool(memory, 'recall', {})).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('"query"') });
    await expect(runTool(memory, 'recall_by_time', { from: 'last week', to: '2025-04-01' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(runTool(memory, 'get_images', { roundIds: 'r1' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(runTool(memory, 'remember', { user: 'hi', images: [{ caption: 'no source' }] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(runTool(memory, 'delete_everything', {})).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('recall, recall_by_time') });
  });

  it('toolError turns a mistake the model can fix into JSON and rethrows the rest', async () => {
    const memory = await filledMemory();
    const fixable = await runTool(memory, 'forget', { roundId: 'nope' }).then((output) => output.content, toolError);
    expect(fixable).toMatchObject({ error: { code: 'UNKNOWN_ROUND', message: expect.stringContaining('nope') } });
    await memory.close();
    await expect(runTool(memory, 'recall', { query: 'violin' }).then((output) => output.content, toolError)).rejects.toMatchObject({ code: 'CLOSED' });
  });
});

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const toolCallReply = (id: string, name: string, args: unknown) => ({ body: toolCallBody(id, name, args) });
type Body = { messages: { role: string; content: unknown; tool_call_id?: string; tool_calls?: unknown[] }[]; tools: unknown[]; tool_choice: string };
const bodyOf = (request: RecordedRequest) => request.body as Body;

describe('runAgent', () => {
  it('round-trips a tool call: the second request carries the tool result JSON', async () => {
    const memory = await filledMemory();
    const handler: FakeHandler = (request) => {
      const messages = bodyOf(request).messages;
      return messages.some((message) => message.role === 'tool') ? { body: completionBody('You started violin lessons on 1 April 2025.') } : toolCallReply('call_1', 'recall', { query: 'violin lessons' });
    };
    server = await startFakeOpenAiServer(handler);
    const result = await runAgent({ llm: createOpenAiProvider({ baseUrl: server.url, model: 'tool-model' }), memory, question: 'When did I start violin?', today: at(25) });

    expect(result.answer).toBe('You started violin lessons on 1 April 2025.');
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map(bodyOf);
    expect((first!.tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual(['recall', 'recall_by_time', 'get_images']);
    expect(first!.tool_choice).toBe('auto');
    expect(first!.messages[0]!.content).toContain('Today is 2025-04-25');
    const toolMessage = second!.messages.find((message) => message.role === 'tool')!;
    expect(toolMessage.tool_call_id).toBe('call_1');
    const payload = JSON.parse(toolMessage.content as string) as { rounds: { id: string }[] };
    expect(payload.rounds[0]!.id).toBe('r1');
    expect(second!.messages.find((message) => message.role === 'assistant')!.tool_calls).toHaveLength(1);
    expect(result.steps).toEqual([{ index: 1, toolCalls: [expect.objectContaining({ name: 'recall', arguments: { query: 'violin lessons' } })] }]);
  });

  it('shows fetched pictures to a vision model as image parts after the tool result', async () => {
    const memory = await filledMemory();
    server = await startFakeOpenAiServer((request) =>
      bodyOf(request).messages.some((message) => message.role === 'tool') ? { body: completionBody('It is black.') } : toolCallReply('call_img', 'get_images', { roundIds: ['r2'] }),
    );
    const llm = createOpenAiProvider({ baseUrl: server.url, model: 'vision', vision: true });
    const result = await runAgent({ llm, memory, question: 'What colour is my bike?', imageResizer: nodeImageResizer });
    expect(result.answer).toBe('It is black.');
    const last = bodyOf(server.requests[1]!).messages.at(-1)!;
    expect(last.role).toBe('user');
    const parts = last.content as { type: string; image_url?: { url: string; detail: string } }[];
    expect(parts[0]).toMatchObject({ type: 'text', text: expect.stringContaining('picture 1 is image bike') });
    expect(parts[1]!.image_url).toMatchObject({ url: expect.stringMatching(/^data:image\/jpeg;base64,/), detail: 'low' });
  });

  it('returns argument errors to the model and forces an answer at maxSteps', async () => {
    const memory = await filledMemory();
    server = await startFakeOpenAiServer((request) =>
      bodyOf(request).tool_choice === 'none' ? { body: completionBody('I could not find it.') } : toolCallReply(`call_${server!.requests.length}`, 'recall', { limit: 3 }),
    );
    const result = await runAgent({ llm: createOpenAiProvider({ baseUrl: server.url, model: 'm' }), memory, question: 'Anything?', maxSteps: 3 });
    expect(result).toMatchObject({ answer: 'I could not find it.', forcedFinal: true });
    expect(server.requests.map((request) => bodyOf(request).tool_choice)).toEqual(['auto', 'auto', 'none']);
    expect(result.steps[0]!.toolCalls[0]!.result).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    const toolMessage = bodyOf(server.requests[1]!).messages.find((message) => message.role === 'tool')!;
    expect(JSON.parse(toolMessage.content as string)).toMatchObject({ error: { code: 'INVALID_INPUT', message: expect.stringContaining('"query"') } });
  });

  it('surfaces server errors as typed LLM errors', async () => {
    const memory = await filledMemory();
    server = await startFakeOpenAiServer(() => ({ status: 401, body: { error: { message: 'bad key' } } }));
    await expect(runAgent({ llm: createOpenAiProvider({ baseUrl: server.url, model: 'm', apiKey: 'sk-secret' }), memory, question: 'Hi' })).rejects.toMatchObject({ code: 'LLM_HTTP', status: 401 });
    server.requests.length = 0;
    await server.close();
    server = await startFakeOpenAiServer(() => ({ body: { choices: [{ message: { role: 'assistant', content: null } }] } }));
    await expect(runAgent({ llm: createOpenAiProvider({ baseUrl: server.url, model: 'm' }), memory, question: 'Hi' })).rejects.toMatchObject({ code: 'LLM_MALFORMED' });
  });

  it('refuses a provider that cannot call tools', async () => {
    const memory = await filledMemory();
    await expect(runAgent({ llm: createNoneProvider(), memory, question: 'Hi' })).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE', message: expect.stringContaining('"none"') });
  });
});
